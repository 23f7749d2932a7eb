package store

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
)

// closeDayOf closes a day and fails the test on an error.
func closeDayOf(t *testing.T, svc *app.Service, date string, expire bool) app.DayClose {
	t.Helper()
	dc, err := svc.CloseDay(context.Background(), app.CloseDayRequest{Date: date, ExpireUnused: expire, Operator: "boss"})
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

// The close's figures are the figures of 'stats' for that day, whatever
// happened: issues, prints, reprints, redemptions at two hours by two
// operators, refusals, an undo, a disable, a replacement.
func TestCloseDayAddsUp(t *testing.T) {
	ctx := context.Background()
	svc, db, clock := mustOpen(t)
	day := clock.Now() // 10:00
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 10})
	ids := make([]int64, 4)
	for i := range ids {
		rec, _ := db.Lookup(ctx, codes[i])
		ids[i] = rec.ID
	}
	for i, reprint := range []bool{false, true} {
		job, err := db.StartPrintJob(ctx, app.PrintJob{CreatedAt: day.Unix(), Station: "Station A", Template: "L7160", Format: "pdf", Reprint: reprint}, ids[:2+i])
		if err != nil {
			t.Fatal(err)
		}
		if err := db.FinishPrintJob(ctx, job, day.Unix(), nil); err != nil {
			t.Fatal(err)
		}
	}
	redeemAt(t, svc, clock, day.Add(5*time.Minute), codes[0].String(), app.OutcomeRedeemed)
	clock.Set(day.Add(6 * time.Minute))
	if _, err := svc.Redeem(ctx, codes[1].String(), "wang"); err != nil {
		t.Fatal(err)
	}
	redeemAt(t, svc, clock, day.Add(75*time.Minute), codes[2].String(), app.OutcomeRedeemed)
	redeemAt(t, svc, clock, day.Add(76*time.Minute), codes[2].String(), app.OutcomeAlreadyUsed)
	redeemAt(t, svc, clock, day.Add(77*time.Minute), "hello", app.OutcomeMalformed)
	if _, err := svc.UndoRedemption(ctx, app.UndoRequest{Code: codes[2].String(), Reason: "wrong parcel", Operator: "boss"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetDisabled(ctx, codes[3].String(), true, "label damaged", "li"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Replace(ctx, app.ReplaceRequest{Code: codes[4].String(), Reason: "label torn", Operator: "li"}); err != nil {
		t.Fatal(err)
	}

	clock.Set(day.Add(8 * time.Hour))
	dc := closeDayOf(t, svc, "", false)
	f, st := dc.Figures, statsOf(t, svc, "")
	if f.Date != st.Date || f.Issued != st.Issued || f.Printed != st.Printed || f.Scans != st.Scans || f.Redeemed != st.Redeemed ||
		f.Unused != st.Unused || !maps.Equal(f.Refused, st.Refused) {
		t.Fatalf("close %+v\nstats %+v: they must agree", f, st)
	}
	// The undone redemption (11:15, li) is not counted as redeemed.
	want := app.DayFigures{Issued: 11, PrintJobs: 2, Reprints: 1, Printed: 3, Redeemed: 2, Undone: 1, Disabled: 2, Unused: 7}
	if f.Issued != want.Issued || f.PrintJobs != want.PrintJobs || f.Reprints != want.Reprints || f.Printed != want.Printed ||
		f.Redeemed != want.Redeemed || f.Undone != want.Undone || f.Disabled != want.Disabled || f.Unused != want.Unused {
		t.Fatalf("figures %+v, want %+v", f, want)
	}
	if f.RedeemedByOperator["li"] != 1 || f.RedeemedByOperator["wang"] != 1 {
		t.Fatalf("by operator %v", f.RedeemedByOperator)
	}
	// On a day the clocks change the hours carry the zone ("10:00 CET").
	hour := func(i int) string { return strings.Fields(f.RedeemedByHour[i].Hour)[0] }
	if len(f.RedeemedByHour) != 1 || hour(0) != "10:00" || f.RedeemedByHour[0].Count != 2 {
		t.Fatalf("by hour %v, want 10:00 2", f.RedeemedByHour)
	}
	if f.Refused[app.OutcomeAlreadyUsed] != 1 || f.Refused[app.OutcomeMalformed] != 1 {
		t.Fatalf("refused %v", f.Refused)
	}
	if dc.PreviousAt != 0 || len(dc.Changes) != 0 || dc.ExpiredNow != 0 {
		t.Fatalf("first close %+v", dc)
	}

	t.Run("AgainShowsChanges", func(t *testing.T) {
		clock.Set(day.Add(9 * time.Hour))
		if _, err := svc.Redeem(ctx, codes[5].String(), "li"); err != nil {
			t.Fatal(err)
		}
		again := closeDayOf(t, svc, "", false)
		if again.PreviousAt != day.Add(8*time.Hour).Unix() {
			t.Fatalf("previous close at %d, want the first close", again.PreviousAt)
		}
		got := map[string][2]int{}
		for _, c := range again.Changes {
			got[c.Key] = [2]int{c.Before, c.Now}
		}
		hour19 := "redeemed_hour:" + again.Figures.RedeemedByHour[len(again.Figures.RedeemedByHour)-1].Hour // 19:00, with the zone on a day the clocks change
		if !strings.HasPrefix(hour19, "redeemed_hour:19:00") {
			t.Fatalf("last hour %s, want 19:00", hour19)
		}
		want := map[string][2]int{"scans": {5, 6}, "redeemed": {2, 3}, "redeemed_by:li": {1, 2}, hour19: {0, 1}, "unused": {7, 6}}
		if !maps.Equal(got, want) {
			t.Fatalf("changes %v, want %v", got, want)
		}
	})
	t.Run("ExpireUnused", func(t *testing.T) {
		dc := closeDayOf(t, svc, "", true)
		if dc.ExpiredNow != 6 || dc.Figures.Unused != 0 || dc.Figures.Expired != 6 {
			t.Fatalf("close with expiry: expired now %d, figures %+v", dc.ExpiredNow, dc.Figures)
		}
		if v, _ := svc.Redeem(ctx, codes[6].String(), "li"); v.Outcome != app.OutcomeExpired {
			t.Fatalf("a label of the closed day: %+v, want expired", v)
		}
		if n := count(t, db, `SELECT count(*) FROM day_closes`); n != 3 {
			t.Fatalf("%d closes recorded, want 3", n)
		}
	})
	t.Run("ErrFuture", func(t *testing.T) {
		_, err := svc.CloseDay(ctx, app.CloseDayRequest{Date: clock.Now().AddDate(0, 0, 1).Format("2006-01-02"), Operator: "boss"})
		if app.KindOf(err) != app.KindInvalid {
			t.Fatalf("closing tomorrow: %v", err)
		}
	})
}

// On the day the clocks go back the hour from 02:00 comes twice; the
// close tells them apart and counts the redemptions of all 25 hours.
func TestCloseDayOnDSTChange(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	svc, _, clock := mustOpen(t)
	day, _ := time.ParseInLocation("2006-01-02", "2027-10-31", berlin)
	clock.Set(day.Add(time.Hour))
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 3})
	// 02:30 summer time, 02:30 winter time (an hour later), 23:59:59.
	for i, at := range []time.Time{day.Add(150 * time.Minute), day.Add(210 * time.Minute), day.AddDate(0, 0, 1).Add(-time.Second)} {
		redeemAt(t, svc, clock, at, codes[i].String(), app.OutcomeRedeemed)
	}
	dc := closeDayOf(t, svc, "2027-10-31", false)
	want := []app.DayHour{{Hour: "02:00 CEST", Count: 1}, {Hour: "02:00 CET", Count: 1}, {Hour: "23:00 CET", Count: 1}}
	if len(dc.Figures.RedeemedByHour) != 3 || dc.Figures.RedeemedByHour[0] != want[0] || dc.Figures.RedeemedByHour[1] != want[1] || dc.Figures.RedeemedByHour[2] != want[2] {
		t.Fatalf("by hour %v, want %v", dc.Figures.RedeemedByHour, want)
	}
	if dc.Figures.Redeemed != 3 {
		t.Fatalf("redeemed %d, want 3", dc.Figures.Redeemed)
	}
}
