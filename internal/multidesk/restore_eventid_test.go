package multidesk_test

import (
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestRestoredServerTakenEventIDGoesAgainUnderANewID (found by the hostile review of
// stop 29): the feed hands every desk the
// event id of every redemption. Desk A's online redemption of X is
// answered "redeemed"; every desk reads it from the feed. The server is
// restored to a backup from before it. Before A syncs, desk B (any desk
// token: a stolen sync.json, a misbehaving desk) sends an event of its
// own under A's redemption's id, for another label. A's sync sends its
// redemption again: the server answered 409 event_reused, A gave it up
// for good, and the restored server never got it back: X was unused there
// and desk C handed it over again, with no conflict anywhere. Now the
// server says the id is another desk's (id_taken) and A sends its
// redemption again under a new id, with everything that names it: its
// supervisor's undo of it afterwards is accepted.
func TestRestoredServerTakenEventIDGoesAgainUnderANewID(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b, c := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B"), g.deskAt(t, "Desk C", "C")
		codes := a.Issue(t, 3)
		hostileSyncAll(t, 1, a, b, c)
		backup := g.backup()
		x, y := codes[0], codes[1]
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		hostileSyncAll(t, 1, a, b, c)
		// What desk B learned from the feed: the redemption's event id.
		var id string
		if err := b.DB.SQL().QueryRow(`SELECT r.trace_id FROM redemptions r JOIN codes k ON k.id = r.code_id WHERE k.code = ?`, x).Scan(&id); err != nil || id == "" {
			t.Fatalf("desk B does not hold A's redemption's event id: %q %v", id, err)
		}

		g.restore(backup)
		var res struct {
			Results []protocol.Result `json:"results"`
		}
		st := g.Call(t, "POST", "/v1/events", "qrd_test_Desk_B", g.Ring, map[string]any{"events": []protocol.Event{{EventID: id, Kind: protocol.KindRedeem, Code: y, Operator: "wang", At: g.Now.Unix(), Offline: true}}}, &res)
		t.Logf("desk B's event under A's id: %d %+v", st, res.Results)

		a.Sync(t)
		a.Sync(t)
		if status, station := g.Server(t).StatusAndStation(x); status != "used" || station != "Desk A" {
			t.Errorf("after desk A sent everything again the server has %s %s at %q: A's acknowledged redemption is lost", x, status, station)
		}
		c.Sync(t) // C follows the restored server
		if v := c.Redeem(t, x, "zhao"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Errorf("desk C online: %s, want already_used: X handed over twice, no conflict recorded", v.Outcome)
		}
		if u := a.Undo(t, x, "wrong parcel"); u.Server != "undone" || u.Undoes == id {
			t.Errorf("desk A's undo of its redemption sent under a new id: %+v (the old id was %s)", u, id)
		}
		if status, _ := g.Server(t).StatusAndStation(x); status != "unused" {
			t.Errorf("after desk A's undo the server has %s %s", x, status)
		}
		hostileSyncAll(t, 2, a, b, c)
		for name, d := range map[string]*watchedDesk{"A": a, "B": b, "C": c} {
			if st := d.Status(t, x); st != app.StatusUnused {
				t.Errorf("desk %s has %s %s after the undo, the server unused", name, x, st)
			}
		}
	})
}

// TestRestoredServerEventIDSquattedUndoWaits: the same taken id, with
// desk A's undo of the redemption sent again beside it after the restore.
// The undo names the redemption's new id, so the restored server takes
// the redemption and its undo as A did: X unused, nothing refused, no
// conflict.
func TestRestoredServerEventIDSquattedUndoWaits(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		codes := a.Issue(t, 3)
		hostileSyncAll(t, 1, a, b)
		backup := g.backup()
		x, y := codes[0], codes[1]
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		u := a.Undo(t, x, "wrong parcel")
		if u.Server != "undone" {
			t.Fatalf("desk A's undo: %+v", u)
		}
		hostileSyncAll(t, 1, a, b)

		g.restore(backup)
		var res struct {
			Results []protocol.Result `json:"results"`
		}
		st := g.Call(t, "POST", "/v1/events", "qrd_test_Desk_B", g.Ring, map[string]any{"events": []protocol.Event{{EventID: u.Undoes, Kind: protocol.KindRedeem, Code: y, Operator: "wang", At: g.Now.Unix(), Offline: true}}}, &res)
		if st != 200 {
			t.Fatalf("desk B's event under A's id: %d %+v", st, res.Results)
		}

		a.Sync(t)
		a.Sync(t)
		if status, _ := g.Server(t).StatusAndStation(x); status != "unused" {
			t.Errorf("the restored server has %s %s after desk A sent its redemption and undo again, want unused", x, status)
		}
		if n := g.Server(t).CountConflicts(); n != 0 {
			t.Errorf("%d conflicts on the server, want none: one parcel went out and came back", n)
		}
		if st := a.Status(t, x); st != app.StatusUnused {
			t.Errorf("desk A has %s %s, want unused", x, st)
		}
	})
}
