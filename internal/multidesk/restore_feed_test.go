package multidesk_test

import (
	"testing"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// offline points a desk at nowhere (its scans are decided alone) and
// returns a function that points it at the server again.
func (g *restorable) Offline(d *watchedDesk, name string) func() {
	d.Svc.Remote = deskclient.New("http://127.0.0.1:1", "x")
	return func() { d.Svc.Remote = centraltest.NewClient(g.Harness, name) }
}

// TestRestoreFeedHoleMissesConflict: desk B only reads the feed
// after the backup (it writes nothing), so its write numbers never show the
// restore; its cursor is past the restored feed's head. After the restore,
// desk A redeems X online and desk D, which redeemed X offline, syncs: a
// conflict. Desk C then sends its lost batch again, so the feed head passes
// B's cursor before B asks: B is never told feed_reset, and the changes at
// the positions it had read before the restore (A's redemption of X, the
// conflict) are never delivered to it. The conflict must be recorded at
// every desk, and B must agree with the server.
func TestRestoreFeedHoleMissesConflict(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b, c, d := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B"), g.deskAt(t, "Desk C", "C"), g.deskAt(t, "Desk D", "D")
		codes := a.Issue(t, 2)
		for _, k := range []*watchedDesk{a, b, c, d} {
			k.Sync(t)
		}
		backup := g.backup()
		c.Issue(t, 10) // ten feed changes after the backup
		c.Sync(t)
		b.Sync(t) // B's cursor: ten past the backup's head

		g.restore(backup)
		x := codes[0]
		back := g.Offline(d, "Desk D")
		if v := d.Redeem(t, x, "zhao"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk D offline: %+v", v)
		}
		back()
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		d.Sync(t) // the conflict
		c.Sync(t) // C finds the restore and sends its batch again
		b.Sync(t)
		b.Sync(t)

		if k := g.Server(t).CountConflicts(); k != 1 {
			t.Fatalf("the server has %d conflicts, want 1", k)
		}
		if n := b.Count(t, `SELECT count(*) FROM conflicts`); n != 1 {
			t.Errorf("desk B records %d conflicts after two syncs, the server 1: label %s was handed over at two desks and B never hears of it", n, x)
		}
		var st string
		b.DB.SQL().QueryRow(`SELECT status FROM codes WHERE code = ?`, x).Scan(&st)
		if st != "used" {
			t.Errorf("desk B has %s %q after two syncs, the server \"used\": B never converges", x, st)
		}
	})
}
