package multidesk_test

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
)

// TestRestoreUndoFalselyRefused: after the backup, desk A redeems X
// online and a supervisor undoes it; the server accepts the undo. The
// server is restored. A sends everything again: the undo, but not the
// redemption it undid (an undone online redemption is not queued), so the
// restored server refuses the undo ("there is no redemption to undo") and
// A now lists the supervisor's undo as refused by the server, with an
// audit entry undo_refused, though it was accepted and nothing is wrong.
func TestRestoreUndoFalselyRefused(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a := g.deskAt(t, "Desk A", "A")
		codes := a.Issue(t, 2)
		a.Sync(t)
		backup := g.backup()
		x := codes[0]
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		u, err := a.Svc.UndoRedemption(context.Background(), app.UndoRequest{Code: x, Reason: "wrong parcel", Operator: "chen"})
		if err != nil || u.Server != "undone" {
			t.Fatalf("undo: %+v %v, want undone by the server", u, err)
		}
		a.Sync(t)

		g.restore(backup)
		a.Sync(t)
		refused, err := a.Svc.RefusedUndos(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refused {
			t.Errorf("after the restore desk A lists its accepted undo of %s as refused: %q", r.Code, r.ServerReason)
		}
		if status, _ := g.serverStatus(t, x); status != "unused" {
			t.Errorf("the server has %s %s, want unused", x, status)
		}
	})
}
