package server_test

import (
	"testing"
	"time"

	"qrdesk/app"
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
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := twoDesks(t, dbPath, 2)
		x := codes[0]
		y := a.replace(t, x, "li")
		a.sync(t)
		h.now = h.now.Add(time.Minute)
		if dc := b.closeDay(t, true); dc.ExpiredNow != 2 {
			t.Fatalf("close-day at B expired %d, want 2", dc.ExpiredNow)
		}
		b.sync(t)
		a.sync(t)
		b.sync(t)
		var st string
		h.db.QueryRowForTests(`SELECT status FROM codes WHERE code = ?`, y).Scan(&st)
		t.Logf("after the close: server Y %s; desk A Y %s, desk B Y %s, desk B X %s", st, a.status(t, y), b.status(t, y), b.status(t, x))
		h.now = h.now.Add(time.Minute)
		if v := a.redeem(t, y, "li"); v.Outcome == app.OutcomeRedeemed {
			t.Errorf("after desk B closed the day expiring X's parcel, its replacement Y (issued before the close) is redeemed online: %+v", v.Outcome)
		}
	})
}
