package multidesk_test

import (
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Hostile review of claim (2) with a replacement: desk A replaces today's
// label X by Y (synced: the server has X disabled "replaced by Y" and Y
// valid). Desk B, not synced since, closes the day with --expire-unused:
// X, one of the day's unused labels there, is expired. After everyone
// syncs, the parcel of X must not still be redeemable: Y, issued before
// the close for the same parcel, is a label of the day left valid at the
// server and every desk, and is redeemed online after the close.
func TestCloseDayLeavesReplacementValid(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		x := codes[0]
		y := a.Replace(t, x, "li")
		a.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		if dc := b.CloseDay(t, true); dc.ExpiredNow != 2 {
			t.Fatalf("close-day at B expired %d, want 2", dc.ExpiredNow)
		}
		b.Sync(t)
		a.Sync(t)
		b.Sync(t)
		st := h.Server(t).Status(y)
		t.Logf("after the close: server Y %s; desk A Y %s, desk B Y %s, desk B X %s", st, a.Status(t, y), b.Status(t, y), b.Status(t, x))
		h.Now = h.Now.Add(time.Minute)
		if v := a.Redeem(t, y, "li"); v.Outcome == app.OutcomeRedeemed {
			t.Errorf("after desk B closed the day expiring X's parcel, its replacement Y (issued before the close) is redeemed online: %+v", v.Outcome)
		}
	})
}
