package server_test

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
)

// Hostile review: the supervisor takes a replacement back (disables Y,
// enables X again, as OneValid allows). Desk A, offline and not told,
// hands over Y; desk B hands over X online. One parcel, two hand-overs: a
// conflict naming X and Y, on the server and at every desk.
func TestReplacementTakenBackThenBothUsed(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := twoDesks(t, dbPath, 1)
		ctx := context.Background()
		x := codes[0]
		y := a.replace(t, x, "li")
		a.sync(t)
		b.sync(t)
		if _, err := b.svc.SetDisabled(ctx, y, true, "replacement printed by mistake", "boss"); err != nil {
			t.Fatalf("disable Y: %v", err)
		}
		if _, err := b.svc.SetDisabled(ctx, x, false, "", "boss"); err != nil {
			t.Fatalf("enable X again: %v", err)
		}
		b.sync(t)
		a.offline(func() {
			if v := a.redeem(t, y, "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline, Y: %+v", v)
			}
		})
		if v := b.redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B online, X: %+v", v)
		}
		for _, d := range []*desk{a, b, a, b} {
			d.sync(t)
		}
		wantEntitlementConflict(t, h, x, y, map[string]*desk{"A": a, "B": b})
	})
}
