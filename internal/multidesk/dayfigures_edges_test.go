package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Hostile review of claim (3): a desk's stats and close-day show its own
// figures, equal to its row on the dashboard once synced.

// dashRow is the dashboard's row of station for the harness's day.
func dashRow(t *testing.T, h *centraltest.Harness, station string) (issued, redeemed, conflicts int) {
	t.Helper()
	day := app.Day(h.Now)
	dash, err := h.DB.DayActivity(context.Background(), day.Unix(), day.AddDate(0, 0, 1).Unix())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dash.Desks {
		if d.Station == station {
			return d.Issued, d.Redeemed, d.Conflicts
		}
	}
	return 0, 0, 0
}

// The supervisor renames the desk in its settings in the middle of the
// day (the server still knows it by its enrolled name). The redemptions it
// made under its old name are still its own: stats and close-day must
// still equal its dashboard row.
func TestFiguresSurviveDeskRename(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 3)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		h.Now = h.Now.Add(time.Minute)
		if _, err := a.Svc.UpdateSettings(context.Background(), map[string]string{"station_name": "Front desk"}, "boss"); err != nil {
			t.Fatal(err)
		}
		if v := a.Redeem(t, codes[1], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A renamed: %+v", v)
		}
		a.Sync(t)
		_, redeemed, _ := dashRow(t, h, "Desk A")
		if redeemed != 2 {
			t.Fatalf("dashboard row of Desk A: %d redeemed, want 2 (the test's premise)", redeemed)
		}
		st, err := a.Svc.Stats(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		dc := a.CloseDay(t, false)
		if st.Redeemed != redeemed || dc.Figures.Redeemed != redeemed {
			t.Errorf("renamed desk: stats redeemed %d, close-day redeemed %d; its dashboard row %d", st.Redeemed, dc.Figures.Redeemed, redeemed)
		}
	})
}

// The same with the desk renamed before the day's first scan: every
// redemption it makes is its own, whatever name the server enrolled.
func TestFiguresOfDeskNamedOtherThanEnrolled(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 2)
		if _, err := a.Svc.UpdateSettings(context.Background(), map[string]string{"station_name": "Front desk"}, "boss"); err != nil {
			t.Fatal(err)
		}
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A: %+v", v)
		}
		a.Offline(func() {
			if v := a.Redeem(t, codes[1], "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline: %+v", v)
			}
		})
		before, _ := a.Svc.Stats(context.Background(), "")
		a.Sync(t)
		_, redeemed, _ := dashRow(t, h, "Desk A")
		st, _ := a.Svc.Stats(context.Background(), "")
		t.Logf("redemption rows at the desk: %d named Desk A, %d named Front desk", a.Count(t, `SELECT count(*) FROM redemptions WHERE station = 'Desk A'`), a.Count(t, `SELECT count(*) FROM redemptions WHERE station = 'Front desk'`))
		if st.Redeemed != redeemed || before.Redeemed != 2 {
			t.Errorf("desk renamed \"Front desk\" (enrolled as Desk A): stats redeemed %d before sync, %d after; its dashboard row %d", before.Redeemed, st.Redeemed, redeemed)
		}
	})
}

// Around midnight with the desk's clock a minute slow (within the drift
// the server tolerates): the desk redeems online at 23:59:30 by its clock,
// 00:00:30 by the server's. Its day figures and its dashboard row must put
// the redemption on the same day.
func TestFiguresAcrossMidnightSlowDesk(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, _, codes := centraltest.TwoDesks(t, dbPath, 2)
		ctx := context.Background()
		day := app.Day(h.Now)
		next := day.AddDate(0, 0, 1)
		h.Now = next.Add(30 * time.Second)
		a.Svc.Now = func() time.Time { return h.Now.Add(-time.Minute) }
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		a.Offline(func() {
			if v := a.Redeem(t, codes[1], "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk A offline: %+v", v)
			}
		})
		a.Sync(t)
		for _, d := range []time.Time{day, next} {
			dash, err := h.DB.DayActivity(ctx, d.Unix(), d.AddDate(0, 0, 1).Unix())
			if err != nil {
				t.Fatal(err)
			}
			row := 0
			for _, r := range dash.Desks {
				if r.Station == "Desk A" {
					row = r.Redeemed
				}
			}
			f, err := a.Svc.DayFigures(ctx, d.Format("2006-01-02"))
			if err != nil {
				t.Fatal(err)
			}
			if f.Redeemed != row {
				t.Errorf("%s: desk A's figures: %d redeemed; its dashboard row: %d", d.Format("2006-01-02"), f.Redeemed, row)
			}
		}
	})
}

// Desk B hands X over offline at 10:00; desk A online at 10:05 (the server
// has not heard of B's); B uploads at 10:10. Whichever the server keeps as
// the redemption of record, each desk's own figures must equal its
// dashboard row: redeemed and conflicts.
func TestFiguresWhenEarlierOfflineUseArrivesLate(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h, a, b, codes := centraltest.TwoDesks(t, dbPath, 1)
		ctx := context.Background()
		x := codes[0]
		b.Offline(func() {
			if v := b.Redeem(t, x, "wang"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("desk B offline: %+v", v)
			}
		})
		h.Now = h.Now.Add(5 * time.Minute)
		if v := a.Redeem(t, x, "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("desk A online: %+v", v)
		}
		h.Now = h.Now.Add(5 * time.Minute)
		for _, d := range []*centraltest.Desk{b, a, b, a} {
			d.Sync(t)
		}
		for name, d := range map[string]*centraltest.Desk{"Desk A": a, "Desk B": b} {
			_, redeemed, conflicts := dashRow(t, h, name)
			f, err := d.Svc.DayFigures(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			if f.Redeemed != redeemed || f.Conflicts != conflicts {
				t.Errorf("%s: its figures redeemed %d, conflicts %d; its dashboard row redeemed %d, conflicts %d", name, f.Redeemed, f.Conflicts, redeemed, conflicts)
			}
		}
	})
}
