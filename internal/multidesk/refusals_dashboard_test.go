package multidesk_test

import (
	"context"
	"testing"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestRefusalsMatchDashboardRow: desk B refuses a label desk A used, once
// while the server is away and once online (it knows the label is used and
// does not ask), a label disabled at A (online, known), and a forged one;
// the server refuses one more online. After both sync, B's refused-by-reason
// figures equal its dashboard row: the server's refusals plus the ones B
// reported it decided alone, shown apart. On the code before, the row said
// 0 for every refusal B decided itself.
func TestRefusalsMatchDashboardRow(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 4)
		ctx := context.Background()
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		if _, err := a.Svc.SetDisabled(ctx, codes[1], true, "damaged", "li"); err != nil {
			t.Fatal(err)
		}
		a.Sync(t)
		b.Sync(t)
		b.Offline(func() {
			if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeAlreadyUsed {
				t.Fatalf("desk B offline: %+v", v)
			}
		})
		if v := b.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk B online: %+v", v)
		}
		if v := b.Redeem(t, codes[1], "wang"); v.Outcome != app.OutcomeDisabled {
			t.Fatalf("desk B online: %+v", v)
		}
		forged := []byte(codes[3])
		forged[len(forged)-1] ^= 1
		if v := b.Redeem(t, string(forged), "wang"); v.Outcome.Accepted() {
			t.Fatalf("desk B, a forged label: %+v", v)
		}
		// A used codes[2] after B's last sync: the server refuses B's scan.
		if v := a.Redeem(t, codes[2], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		if v := b.Redeem(t, codes[2], "wang"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Fatalf("desk B, asked online: %+v", v)
		}
		b.Sync(t)
		a.Sync(t)
		day := app.Day(h.Now)
		dash, err := h.DB.DayActivity(ctx, day.Unix(), day.AddDate(0, 0, 1).Unix())
		if err != nil {
			t.Fatal(err)
		}
		reports, err := h.DB.DeskStatuses(ctx, app.FormatDate(h.Now))
		if err != nil {
			t.Fatal(err)
		}
		dash.AddPrinted(reports)
		var row central.DeskDay
		for _, d := range dash.Desks {
			if d.Station == "Desk B" {
				row = d
			}
		}
		want := app.DeskRefusals{AlreadyUsed: 2, Disabled: 1, Forged: 1}
		if row.RefusedHere != want || row.Refused[protocol.OutcomeAlreadyUsed] != 1 {
			t.Fatalf("desk B's dashboard row: refused by the server %v, at the desk alone %+v; want already used 1 by the server and %+v at the desk", row.Refused, row.RefusedHere, want)
		}
		f, err := b.Svc.DayFigures(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		here := map[app.Outcome]int{app.OutcomeAlreadyUsed: row.RefusedHere.AlreadyUsed, app.OutcomeDisabled: row.RefusedHere.Disabled}
		for _, o := range []app.Outcome{app.OutcomeAlreadyUsed, app.OutcomeDisabled} {
			if f.Refused[o] != row.Refused[protocol.Outcome(o)]+here[o] {
				t.Errorf("desk B's close-day figures refused %s %d; its dashboard row %d by the server + %d at the desk", o, f.Refused[o], row.Refused[protocol.Outcome(o)], here[o])
			}
		}
		if f.RefusedHere != want {
			t.Errorf("desk B's own count of what it refused alone: %+v, want %+v", f.RefusedHere, want)
		}
	})
}
