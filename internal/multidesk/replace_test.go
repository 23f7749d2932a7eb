package multidesk_test

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// A replacement travels through the existing outbox and batch upload: the
// other desks refuse the old label and redeem the new one.
func TestReplaceTravels(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		r, err := a.Svc.Replace(context.Background(), app.ReplaceRequest{Code: codes[0], Reason: "label torn", Operator: "li"})
		if err != nil {
			t.Fatal(err)
		}
		a.Sync(t)
		b.Sync(t)
		if n := centraltest.Count(t, h.DB, `SELECT count(*) FROM codes WHERE code = ? AND status = 'disabled' AND disabled_reason = ?`, codes[0], "replaced by "+r.New.Code); n != 1 {
			t.Fatal("the server did not disable the old label")
		}
		if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeDisabled || v.DisabledReason != "replaced by "+r.New.Code {
			t.Fatalf("desk B, old label: %+v", v)
		}
		if v := b.Redeem(t, r.New.Code, "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk B, new label: %+v", v)
		}
		a.Sync(t)
		if v, _ := a.Svc.Check(context.Background(), r.New.Code); v.Outcome != app.OutcomeAlreadyUsed || v.UsedStation != "Desk B" {
			t.Fatalf("desk A, new label after desk B redeemed it: %+v", v)
		}
	})
}
