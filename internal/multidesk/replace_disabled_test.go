package multidesk_test

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Hostile review: a supervisor at desk B disables X ("reported stolen: do
// not hand over"); enabling it again needs a supervisor. A clerk at desk A
// (synced, so it knows) replaces X instead: the desk and the server accept,
// and the parcel goes out on the new label Y online. A replacement of a
// disabled label is an enable by another name (OneValid treats it as one),
// without the supervisor, and against the server's disable.
func TestReplaceRevivesDisabledLabel(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		_, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		x := codes[0]
		if _, err := b.Svc.SetDisabled(context.Background(), x, true, "reported stolen: do not hand over", "boss"); err != nil {
			t.Fatal(err)
		}
		b.Sync(t)
		a.Sync(t)
		if got := a.Status(t, x); got != app.StatusDisabled {
			t.Fatalf("desk A: X is %s, want disabled (the premise)", got)
		}
		r, err := a.Svc.Replace(context.Background(), app.ReplaceRequest{Code: x, Reason: "label torn", Operator: "picker"})
		if err == nil {
			a.Sync(t)
			v := b.Redeem(t, r.New.Code, "wang")
			t.Errorf("replace of %s, disabled by a supervisor (%q), accepted: new label %s, redeemed online at desk B: %s",
				x, "reported stolen", r.New.Code, v.Outcome)
		}
	})
}
