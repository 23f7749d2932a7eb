package server_test

import (
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
	"qrdesk/server"
)

// offline points a desk at nowhere (its scans are decided alone) and
// returns a function that points it at the server again.
func (g *restorable) offline(d *watchedDesk, name string) func() {
	d.svc.Remote = server.NewClient("http://127.0.0.1:1", "x")
	return func() { d.svc.Remote = newClient(g.centralHarness, name) }
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
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b, c, d := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B"), g.deskAt(t, "Desk C", "C"), g.deskAt(t, "Desk D", "D")
		codes := a.issue(t, 2)
		for _, k := range []*watchedDesk{a, b, c, d} {
			k.sync(t)
		}
		backup := g.backup()
		c.issue(t, 10) // ten feed changes after the backup
		c.sync(t)
		b.sync(t) // B's cursor: ten past the backup's head

		g.restore(backup)
		x := codes[0]
		back := g.offline(d, "Desk D")
		if v := d.redeem(t, x, "zhao"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk D offline: %+v", v)
		}
		back()
		if v := a.redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		d.sync(t) // the conflict
		c.sync(t) // C finds the restore and sends its batch again
		b.sync(t)
		b.sync(t)

		if k := count(t, g.db, `SELECT count(*) FROM conflicts`); k != 1 {
			t.Fatalf("the server has %d conflicts, want 1", k)
		}
		if n := b.count(t, `SELECT count(*) FROM conflicts`); n != 1 {
			t.Errorf("desk B records %d conflicts after two syncs, the server 1: label %s was handed over at two desks and B never hears of it", n, x)
		}
		var st string
		b.db.SQL().QueryRow(`SELECT status FROM codes WHERE code = ?`, x).Scan(&st)
		if st != "used" {
			t.Errorf("desk B has %s %q after two syncs, the server \"used\": B never converges", x, st)
		}
	})
}
