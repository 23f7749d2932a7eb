package server

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFeedTailPagePerSite: the feed from memory answers a desk with its
// site's changes and the deployment-wide ones after its cursor, in order,
// exactly as a scan of the whole tail would, also once the tail dropped
// its oldest changes (a fixed seed: the same tail every run).
func TestFeedTailPagePerSite(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	tail := &feedTail{ready: true}
	pos := int64(0)
	for len(tail.entries) < tailKeep || tail.floor == 0 {
		add := make([]tailEntry, 1+rng.IntN(500))
		for i := range add {
			pos += 1 + int64(rng.IntN(3)) // positions have gaps (rolled-back writes)
			site := int64(rng.IntN(8))    // site 0: every site's desks
			add[i] = tailEntry{pos: pos, tag: fmt.Sprint(pos), site: site, json: []byte(fmt.Sprintf(`{"seq":%d,"site":%d}`, pos, site))}
		}
		tail.add(add)
	}
	for range 2000 {
		site, limit := int64(1+rng.IntN(7)), 1+rng.IntN(300)
		after := tail.floor + rng.Int64N(tail.head-tail.floor+1)
		body, n := tail.build(after, limit, site)
		var got struct {
			Changes []struct{ Seq, Site int64 } `json:"changes"`
			Next    int64                       `json:"next"`
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("page after %d of site %d: %v: %s", after, site, err, body)
		}
		var want []int64
		for _, e := range tail.entries {
			if e.pos > after && (e.site == site || e.site == 0) && len(want) < limit {
				want = append(want, e.pos)
			}
		}
		if n != len(want) || len(got.Changes) != len(want) {
			t.Fatalf("page after %d of site %d, limit %d: %d changes (n %d), want %d", after, site, limit, len(got.Changes), n, len(want))
		}
		for i, ch := range got.Changes {
			if ch.Seq != want[i] || (ch.Site != site && ch.Site != 0) {
				t.Fatalf("page after %d of site %d: change %d is %d of site %d, want %d", after, site, i, ch.Seq, ch.Site, want[i])
			}
		}
		if next := after; len(want) > 0 && got.Next != want[len(want)-1] || len(want) == 0 && got.Next != next {
			t.Fatalf("page after %d of site %d: next %d", after, site, got.Next)
		}
	}
	for site, list := range tail.bySite {
		if len(list) > 0 && list[0] <= tail.floor {
			t.Errorf("site %d keeps position %d, at or below the floor %d", site, list[0], tail.floor)
		}
	}
}

// BenchmarkFeedTailPageOfOneSite is one desk's answer from a full tail
// (50,000 changes over 100 sites) when its cursor is 10,000 positions
// back: the few of its site, not the 10,000 (docs/performance.md).
func BenchmarkFeedTailPageOfOneSite(b *testing.B) {
	tail := &feedTail{ready: true}
	add := make([]tailEntry, tailKeep)
	for i := range add {
		pos := int64(i + 1)
		add[i] = tailEntry{pos: pos, tag: fmt.Sprint(pos), site: 1 + pos%100, json: []byte(`{"seq":1}`)}
	}
	tail.add(add)
	after := tail.head - 10_000
	b.ReportAllocs()
	for b.Loop() {
		if _, n := tail.build(after, 1000, 7); n != 100 {
			b.Fatalf("%d changes, want 100", n)
		}
	}
}
