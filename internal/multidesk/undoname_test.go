package multidesk_test

import (
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestUndoAtADeskEnrolledUnderAnotherName: the operator enrols the desk as
// "d1" (qrdesk-server station add d1), the clerk names it "Desk A" in its
// settings. It hands a parcel over online (the server's answer names the
// desk d1) and its supervisor takes it back a minute later, at that very
// desk: the undo is taken here and at the server, and another desk sees
// the label unused. Before, the desk refused: "was redeemed at d1: only
// that desk can undo it".
func TestUndoAtADeskEnrolledUnderAnotherName(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		a := h.Desk(t, "Desk A", "A", h.Station(t, "d1", "A"))
		b := h.Desk(t, "Desk B", "B", h.Station(t, "d2", "B"))
		codes := a.Issue(t, 2)
		a.Sync(t)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed || v.UsedStation != "d1" {
			t.Fatalf("online redemption: %+v, want redeemed, named d1 by the server", v)
		}
		h.Now = h.Now.Add(time.Minute)
		if u := a.Undo(t, codes[0], "scanned the wrong parcel"); u.Status != app.StatusUnused {
			t.Fatalf("undo: %+v", u)
		}
		a.Sync(t)
		b.Sync(t)
		for name, d := range map[string]*centraltest.Desk{"Desk A": a, "Desk B": b} {
			if st := d.Status(t, codes[0]); st != app.StatusUnused {
				t.Fatalf("%s holds the label %s after the undo, want unused", name, st)
			}
		}
	})
}
