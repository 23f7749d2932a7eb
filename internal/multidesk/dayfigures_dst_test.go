package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// A desk in Europe/Berlin works a night shift on a summer day: at 00:30
// CEST it issues 2 labels and redeems 1 online, and syncs. In winter (CET)
// it syncs again, reporting its zone as it is now. Expected (README: "once
// synced they equal the desk's row on the dashboard"): its figures of that
// summer day still equal its dashboard row of that day. The dashboard
// counted a desk's row over its own day with the offset it reported last,
// so a past day of another offset was shifted by the DST hour; it counts
// it over the bounds the desk's report of that date gave (day_from,
// day_to). The window
// begins at 23:00 UTC before the date whatever the server's zone, so the
// test does not depend on the machine's zone.
func TestDayFiguresOfASummerDayAfterTheClocksChange(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no tz data:", err)
	}
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		summer := time.Date(2026, 7, 10, 0, 30, 0, 0, berlin)
		h.Now = summer
		a := h.Desk(t, "Desk A", "A", h.Station(t, "Desk A", "A"))
		now := func() time.Time { return h.Now.In(berlin) }
		a.Svc.Now = now
		a.DB.UseClock(now)
		codes := a.Issue(t, 2)
		a.Sync(t)
		if v := a.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("redeem: %+v", v)
		}
		a.Sync(t)
		date := app.FormatDate(summer)
		st, err := a.Svc.Stats(ctx, date)
		if err != nil {
			t.Fatal(err)
		}
		summerRow := dashboardRow(t, h, "Desk A", date)
		h.Now = time.Date(2026, 11, 10, 10, 0, 0, 0, berlin)
		a.Sync(t)
		winterRow := dashboardRow(t, h, "Desk A", date)
		if st.Issued != winterRow.Issued || st.Redeemed != winterRow.Redeemed {
			t.Errorf("desk A (Europe/Berlin) counts %s (summer) issued %d redeemed %d; its dashboard row of %s showed issued %d redeemed %d in summer and issued %d redeemed %d once the desk reported its winter offset", date, st.Issued, st.Redeemed, date, summerRow.Issued, summerRow.Redeemed, winterRow.Issued, winterRow.Redeemed)
		}
	})
}
