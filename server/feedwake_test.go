package server

import "testing"

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestSiteWakes: a change of one site wakes that site's polls only; a
// deployment-wide change (site 0) wakes every site's.
func TestSiteWakes(t *testing.T) {
	var w siteWakes
	a, b := w.channel(1), w.channel(2)
	w.wake(2)
	if closed(a) || !closed(b) {
		t.Fatalf("a change of site 2: site 1 woken %v, site 2 woken %v; want only site 2", closed(a), closed(b))
	}
	if b2 := w.channel(2); closed(b2) {
		t.Fatal("site 2's next wait was already woken")
	}
	a, b, all := w.channel(1), w.channel(2), w.channel(0)
	w.wake(0)
	if !closed(a) || !closed(b) || !closed(all) {
		t.Fatal("a deployment-wide change did not wake every site")
	}
	done1 := w.follow(1)
	done2 := w.follow(1)
	done3 := w.follow(7)
	if polls, sites := w.following(); polls != 3 || sites != 2 {
		t.Fatalf("polls of sites 1, 1 and 7: %d polls in %d sites, want 3 in 2", polls, sites)
	}
	done1()
	done3()
	if polls, sites := w.following(); polls != 1 || sites != 1 {
		t.Fatalf("after two polls ended: %d polls in %d sites, want 1 in 1", polls, sites)
	}
	done2()
	if polls, sites := w.following(); polls != 0 || sites != 0 {
		t.Fatalf("every poll ended: %d polls in %d sites", polls, sites)
	}
}
