package multidesk_test

import (
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Desk A redeems a label online (the clerk is told "redeemed"); desk B,
// apart, used it too, so the server holds a conflict on it. A supervisor at
// desk A, cut off, undoes the redemption and the same clerk hands the
// parcel over again within the same second (the same label, operator and
// desk time). The server refuses the undo (the label has a conflict), and
// the second redemption is a new handover, not the first one renumbered:
// the online redemption stays the record under its own id, the rescan is
// a conflict of its own, and nothing waits in desk A's outbox.
func TestRescanAfterRefusedUndoIsANewRedemption(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		x := codes[0]
		first := a.Redeem(t, x, "li")
		if first.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", first)
		}
		remoteA, remoteB := a.Svc.Remote, b.Svc.Remote
		b.Svc.Remote = nil
		if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B offline: %+v", v)
		}
		b.Svc.Remote = remoteB
		b.Sync(t) // a conflict on x: desk A's online redemption is the record
		a.Svc.Remote = nil
		if u := a.Undo(t, x, "wrong parcel"); u.Status != app.StatusUnused {
			t.Fatalf("offline undo: %+v", u)
		}
		again := a.Redeem(t, x, "li")
		if again.Outcome != app.OutcomeRedeemed || again.TraceID == first.TraceID {
			t.Fatalf("the rescan at desk A: %+v", again)
		}
		a.Svc.Remote = remoteA
		a.Sync(t)
		a.Sync(t)
		b.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND status = 'used' AND used_event = ?`, x, first.TraceID); n != 1 {
			t.Errorf("the server's record of %s is not the online redemption %s", x, first.TraceID)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM events WHERE event_id = ? AND outcome = 'redeemed' AND CAST(offline AS INTEGER) = 0`, first.TraceID); n != 1 {
			t.Errorf("the server does not keep the online redemption %s as redeemed online", first.TraceID)
		}
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM conflicts WHERE code = ? AND first_event = ? AND second_event = ?`, x, first.TraceID, again.TraceID); n != 1 {
			t.Errorf("the server has no conflict of the rescan %s with the online redemption", again.TraceID)
		}
		if n := a.Count(t, `SELECT count(*) FROM outbox WHERE state = 'pending'`); n != 0 {
			t.Errorf("desk A's outbox holds %d pending events after two syncs", n)
		}
	})
}
