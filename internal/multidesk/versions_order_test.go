package multidesk_test

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestUnsupportedUndoThenRescanConflicts: a server that does not
// decide undo (an older release behind the same address: a rollback, or a
// rolling upgrade with two processes) answers desk A's undo of X
// "unsupported", but decides in the same request A's later rescan of X,
// which the desk had queued behind the undo: the rescan meets A's own
// first redemption and becomes a conflict. Once the server knows undo, the
// undo is refused (a conflict), and A's label ends with two handovers on
// record where one parcel went out. Events of a label behind an event the
// server cannot decide must wait with it, also when the server (not the
// desk) finds it cannot decide it.
func TestUnsupportedUndoThenRescanConflicts(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		g := newRestorable(t, dbPath)
		a := g.deskAt(t, "Desk A", "A")
		ctx := context.Background()
		codes := a.Issue(t, 3)
		a.Sync(t) // the server announced undo
		x, y := codes[0], codes[1]

		back := g.Offline(a, "Desk A")
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("offline: %+v", v)
		}
		if _, err := a.Svc.UndoRedemption(ctx, app.UndoRequest{Code: x, Reason: "wrong parcel", Operator: "chen"}); err != nil {
			t.Fatal(err)
		}
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("rescan offline: %+v", v)
		}
		back()

		g.kinds = protocol.BaseKinds // the older server answers
		g.serve()
		if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("online: %+v", v)
		}
		// Another undo: sent at once, with the whole outbox.
		if _, err := a.Svc.UndoRedemption(ctx, app.UndoRequest{Code: y, Reason: "wrong parcel", Operator: "chen"}); err != nil {
			t.Fatal(err)
		}
		a.Sync(t)

		g.kinds = nil // upgraded again
		g.serve()
		a.Sync(t)
		a.Sync(t)
		if k := g.Server(t).Conflicts()[x]; k != 0 {
			t.Errorf("the server records %d conflicts for %s: desk A redeemed it, undid that, and redeemed it again, one parcel", k, x)
		}
		refused, _ := a.Svc.RefusedUndos(ctx)
		for _, r := range refused {
			t.Errorf("desk A's undo of %s refused: %q", r.Code, r.ServerReason)
		}
	})
}
