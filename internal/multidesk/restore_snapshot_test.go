package multidesk_test

import (
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
)

// TestRestoreSnapshotFakesUndo: after the backup, desk B redeems X
// online and desk A learns of it from the feed; A also redeems Y online.
// The server is restored. A syncs first: it finds the restore, starts over
// from the restored snapshot, where X is unused (B has not sent its
// redemption again yet), and takes that for "undone while this desk was
// away": it records an undo of B's redemption that nobody made. B then
// sends its redemption of X again (the server has X used by B), but A's
// made-up undo keeps that same redemption from ever marking X used at A.
// Every desk must end with X used, and no undo must appear from nowhere.
func TestRestoreSnapshotFakesUndo(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a, b := g.deskAt(t, "Desk A", "A"), g.deskAt(t, "Desk B", "B")
		codes := a.Issue(t, 3)
		a.Sync(t)
		b.Sync(t)
		backup := g.backup()
		x, y := codes[0], codes[1]
		if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B online: %+v", v)
		}
		if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		a.Sync(t) // A has B's redemption of X

		g.restore(backup)
		a.Sync(t) // A finds the restore first
		b.Sync(t) // B finds it and sends its redemption of X again
		a.Sync(t)
		a.Sync(t)

		if status, station := g.Server(t).StatusAndStation(x); status != "used" || station != "Desk B" {
			t.Fatalf("the server has %s %s at %q, want used at Desk B", x, status, station)
		}
		var local string
		a.DB.SQL().QueryRow(`SELECT status FROM codes WHERE code = ?`, x).Scan(&local)
		if local != "used" {
			t.Errorf("desk A has %s %q after three syncs, the server \"used\" (Desk B): A never follows B's redemption again", x, local)
		}
		if n := a.Count(t, `SELECT count(*) FROM undos`); n != 0 {
			t.Errorf("desk A records %d undos, but nobody undid anything", n)
		}
	})
}
