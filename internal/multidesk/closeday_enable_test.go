package multidesk_test

// A label enabled after its day was closed.

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// TestEnableAfterCloseMakesTheLabelUsable: a label disabled when its day
// is closed with --expire-unused is not expired (a close expires unused
// labels only); a supervisor then enables it. The choice (design.md seams
// table, "disable × close"): enabling is a supervisor's deliberate act,
// unlike an undo (which is not a decision to make a label usable, and
// returns a closed day's label to expired, central.UndoRestores), so the
// label is unused again, valid at the server and every desk until its own
// expiry, while the day's other unused label stays expired.
func TestEnableAfterCloseMakesTheLabelUsable(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 2)
		if _, err := a.Svc.SetDisabled(ctx, codes[0], true, "lost", "boss"); err != nil {
			t.Fatal(err)
		}
		h.Now = h.Now.Add(time.Minute)
		a.CloseDay(t, true)
		a.Sync(t)
		h.Now = h.Now.Add(time.Minute)
		if _, err := a.Svc.SetDisabled(ctx, codes[0], false, "", "boss"); err != nil {
			t.Fatalf("enable after close: %v", err)
		}
		a.Sync(t)
		b.Sync(t)
		server := h.Server(t).CountLabel(codes[0], "unused")
		if st := b.Status(t, codes[0]); st != app.StatusUnused || server != 1 {
			t.Errorf("label disabled at close-day --expire-unused, then enabled: desk B %s, server unused %d; want unused at both (a supervisor's enable makes it usable)", st, server)
		}
		if st := b.Status(t, codes[1]); st != app.StatusExpired {
			t.Errorf("the day's other unused label at desk B: %s, want expired by the close", st)
		}
	})
}
