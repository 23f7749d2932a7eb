package multidesk_test

import (
	"testing"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/testpg"
)

// OPEN (found by the hostile review of stop 29; fails on both engines,
// needs a misbehaving desk's token; skipped until fixed, see
// docs/reliability.md "Known gaps").
// TestHostileRestoredServerEventIDSquatted: the feed hands every desk the
// event id of every redemption. Desk A's online redemption of X is
// answered "redeemed"; every desk reads it from the feed. The server is
// restored to a backup from before it. Before A syncs, desk B (any desk
// token: a stolen sync.json, a misbehaving desk) sends an event of its
// own under A's redemption's id, for another label. A's sync sends its
// redemption again: the server answers 409 event_reused, A gives it up
// for good, and the restored server never gets it back: X is unused there
// and desk C hands it over again, with no conflict anywhere.
func TestHostileRestoredServerEventIDSquatted(t *testing.T) {
	t.Parallel()
	t.Skip("known gap: on a restored server another desk's token can take an event id the feed showed it, and the owner's redemption sent again is refused as event_reused (docs/reliability.md, Known gaps)")
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
			Results []central.Result `json:"results"`
		}
		st := g.Call(t, "POST", "/v1/events", "qrd_test_Desk_B", g.Ring, map[string]any{"events": []central.Event{{EventID: id, Kind: central.KindRedeem, Code: y, Operator: "wang", At: g.Now.Unix(), Offline: true}}}, &res)
		t.Logf("desk B's event under A's id: %d %+v", st, res.Results)

		a.Sync(t)
		a.Sync(t)
		if status, station := g.serverStatus(t, x); status != "used" || station != "Desk A" {
			t.Errorf("after desk A sent everything again the server has %s %s at %q: A's acknowledged redemption is lost", x, status, station)
		}
		c.Sync(t) // C follows the restored server
		if v := c.Redeem(t, x, "zhao"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Errorf("desk C online: %s, want already_used: X handed over twice, no conflict recorded", v.Outcome)
		}
	})
}
