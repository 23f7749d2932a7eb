package multidesk_test

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Hostile review: the supervisor takes a replacement back (disables Y,
// enables X again, as OneValid allows). Desk A, offline and not told,
// hands over Y; desk B hands over X online. One parcel, two hand-overs: a
// conflict naming X and Y, on the server and at every desk.
func TestReplacementTakenBackThenBothUsed(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		ctx := context.Background()
		x := codes[0]
		y := a.Replace(t, x, "li")
		a.Sync(t)
		b.Sync(t)
		if _, err := b.Svc.SetDisabled(ctx, y, true, "replacement printed by mistake", "boss"); err != nil {
			t.Fatalf("disable Y: %v", err)
		}
		if _, err := b.Svc.SetDisabled(ctx, x, false, "", "boss"); err != nil {
			t.Fatalf("enable X again: %v", err)
		}
		b.Sync(t)
		a.Offline(func() {
			if v := a.Redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline, Y: %+v", v)
			}
		})
		if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B online, X: %+v", v)
		}
		for _, d := range []*centraltest.Desk{a, b, a, b} {
			d.Sync(t)
		}
		wantEntitlementConflict(t, h, x, y, map[string]*centraltest.Desk{"A": a, "B": b})
	})
}
