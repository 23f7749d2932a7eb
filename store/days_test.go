package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/testclock"
)

// Day boundaries are a feature: every test here runs in several time zones
// (whatever $TZ is), because the service takes its zone from its clock.

// zones are the time zones the day tests run in: the machine's, the two
// extremes, and one with daylight saving time.
func zones(t *testing.T) map[string]*time.Location {
	t.Helper()
	out := map[string]*time.Location{"Local": time.Local}
	for _, name := range []string{"Pacific/Kiritimati", "Etc/GMT+12", "Europe/Berlin"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatalf("time zone %s: %v (install tzdata)", name, err)
		}
		out[name] = loc
	}
	return out
}

// at is h:m:s on the suite's day plus days, in loc.
func at(loc *time.Location, days, h, m, s int) time.Time {
	y, mo, d := testclock.Day().AddDate(0, 0, days).Date()
	return time.Date(y, mo, d, h, m, s, 0, loc)
}

func dateOf(t time.Time) string { return t.Format("2006-01-02") }

func redeemAt(t *testing.T, svc *app.Service, clock *testclock.Clock, when time.Time, code string, want app.Outcome) {
	t.Helper()
	clock.Set(when)
	v, err := svc.Redeem(context.Background(), code, "li")
	if err != nil || v.Outcome != want {
		t.Fatalf("scan of %s at %s: %s %v, want %s", code, when.Format("2006-01-02 15:04:05 MST"), v.Outcome, err, want)
	}
}

func statsOf(t *testing.T, svc *app.Service, date string) app.Stats {
	t.Helper()
	st, err := svc.Stats(context.Background(), date)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestScansStraddlingMidnight: scans at 23:59:58, 23:59:59, 00:00:00 and
// 00:00:01 local time count on their own day, in today's figures, the
// figures of a named day and the 14-day chart.
func TestScansStraddlingMidnight(t *testing.T) {
	for name, loc := range zones(t) {
		t.Run(name, func(t *testing.T) {
			svc, _, clock := mustOpen(t)
			clock.Set(at(loc, 0, 12, 0, 0))
			_, codes := mustIssue(t, svc, app.IssueRequest{Count: 4})
			redeemAt(t, svc, clock, at(loc, 0, 23, 59, 58), codes[0].String(), app.OutcomeRedeemed)
			redeemAt(t, svc, clock, at(loc, 0, 23, 59, 59), codes[1].String(), app.OutcomeRedeemed)
			redeemAt(t, svc, clock, at(loc, 1, 0, 0, 0), codes[2].String(), app.OutcomeRedeemed)
			redeemAt(t, svc, clock, at(loc, 1, 0, 0, 0), codes[0].String(), app.OutcomeAlreadyUsed)
			redeemAt(t, svc, clock, at(loc, 1, 0, 0, 1), codes[3].String(), app.OutcomeRedeemed)

			day, next := dateOf(at(loc, 0, 0, 0, 0)), dateOf(at(loc, 1, 0, 0, 0))
			if st := statsOf(t, svc, ""); st.Date != next || st.Scans != 3 || st.Redeemed != 2 || st.Refused[app.OutcomeAlreadyUsed] != 1 || st.Issued != 0 {
				t.Fatalf("today (%s) just after midnight: %+v, want 3 scans, 2 redeemed, 1 already used, none issued", next, st)
			}
			if st := statsOf(t, svc, day); st.Date != day || st.Scans != 2 || st.Redeemed != 2 || st.Issued != 4 || st.Unused != 0 {
				t.Fatalf("the day before (%s): %+v, want 2 scans, 2 redeemed, 4 issued, 0 unused", day, st)
			}
			hist, err := svc.DailyFigures(context.Background(), 14)
			if err != nil {
				t.Fatal(err)
			}
			if len(hist) != 14 || hist[13].Date != next || hist[12].Date != day || hist[0].Date != dateOf(at(loc, -12, 0, 0, 0)) {
				t.Fatalf("chart days %s … %s, %s (%d days), want %s … %s, %s", hist[0].Date, hist[12].Date, hist[13].Date, len(hist), dateOf(at(loc, -12, 0, 0, 0)), day, next)
			}
			if hist[12].Scans != 2 || hist[13].Scans != 3 {
				t.Fatalf("chart scans %d then %d, want 2 then 3", hist[12].Scans, hist[13].Scans)
			}
			// The same two days seen from 23:59:59 of the first.
			clock.Set(at(loc, 0, 23, 59, 59))
			if st := statsOf(t, svc, ""); st.Date != day || st.Scans != 2 {
				t.Fatalf("today at 23:59:59: %+v, want %s with 2 scans", st, day)
			}
		})
	}
}

// TestLabelForTomorrow: a batch for tomorrow's date carries that date and its
// own daily serial, counts as issued today and unused tomorrow, and with eod
// is valid until tomorrow ends.
func TestLabelForTomorrow(t *testing.T) {
	for name, loc := range zones(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			svc, _, clock := mustOpen(t)
			clock.Set(at(loc, 0, 16, 30, 0))
			mustIssue(t, svc, app.IssueRequest{Count: 3})
			tomorrow := dateOf(at(loc, 1, 0, 0, 0))
			b, codes := mustIssue(t, svc, app.IssueRequest{Count: 2, Date: tomorrow, Expires: "eod"})
			wantPrefix := at(loc, 1, 0, 0, 0).Format("060102") + "-A0001-"
			if b.LabelDate != tomorrow || !strings.HasPrefix(codes[0].String(), wantPrefix) {
				t.Fatalf("batch for %s: label date %s, code %s (want %s)", tomorrow, b.LabelDate, codes[0], wantPrefix)
			}
			if want := at(loc, 2, 0, 0, 0).Unix(); b.ExpireAt != want {
				t.Fatalf("expires %s, want the end of %s", app.FormatTime(b.ExpireAt), tomorrow)
			}
			if st := statsOf(t, svc, ""); st.Issued != 5 || st.Unused != 3 {
				t.Fatalf("today: %+v, want 5 issued and today's 3 unused", st)
			}
			if st := statsOf(t, svc, tomorrow); st.Issued != 0 || st.Unused != 2 {
				t.Fatalf("tomorrow: %+v, want 0 issued and 2 unused", st)
			}
			if v, _ := svc.Check(ctx, codes[0].String()); v.Outcome != app.OutcomeValid {
				t.Fatalf("tomorrow's label today: %s, want valid", v.Outcome)
			}
			redeemAt(t, svc, clock, at(loc, 1, 23, 59, 59), codes[0].String(), app.OutcomeRedeemed)
			redeemAt(t, svc, clock, at(loc, 2, 0, 0, 0), codes[1].String(), app.OutcomeExpired)
		})
	}
}

// TestEODOnDSTChange: "eod" is the next local midnight, 23 hours after the
// day began when the clocks go forward and 25 when they go back.
func TestEODOnDSTChange(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		date  string
		hours int
	}{{"2027-03-28", 23}, {"2027-10-31", 25}, {"2027-06-15", 24}} {
		t.Run(tc.date, func(t *testing.T) {
			svc, db, clock := mustOpen(t)
			day, _ := time.ParseInLocation("2006-01-02", tc.date, berlin)
			next := day.AddDate(0, 0, 1)
			clock.Set(day.Add(time.Hour)) // 01:00, before the change at 02:00 or 03:00
			b, codes := mustIssue(t, svc, app.IssueRequest{Count: 4, Expires: "eod"})
			if b.LabelDate != tc.date || b.ExpireAt != next.Unix() {
				t.Fatalf("label %s expiring %v, want %s expiring %v", b.LabelDate, time.Unix(b.ExpireAt, 0).In(berlin), tc.date, next)
			}
			if h := (b.ExpireAt - day.Unix()) / 3600; h != int64(tc.hours) {
				t.Fatalf("the label lives %d hours, want %d", h, tc.hours)
			}
			redeemAt(t, svc, clock, next.Add(-time.Second), codes[0].String(), app.OutcomeRedeemed)
			redeemAt(t, svc, clock, next, codes[1].String(), app.OutcomeExpired)
			// The refused scan left its label unused (TestDeskClockAheadAsksTheServer):
			// Expire marks it with the 2 others.
			if n, err := svc.Expire(context.Background()); err != nil || n != 3 {
				t.Fatalf("Expire at midnight = %d, %v; want the 3 unused codes", n, err)
			}
			if n := count(t, db, `SELECT count(*) FROM codes WHERE status = 'expired'`); n != 3 {
				t.Fatalf("%d expired codes, want 3", n)
			}
			// The day's figures cover exactly its 23, 24 or 25 hours.
			if st := statsOf(t, svc, tc.date); st.Scans != 1 || st.Redeemed != 1 {
				t.Fatalf("figures of %s: %+v", tc.date, st)
			}
			if st := statsOf(t, svc, ""); st.Date != dateOf(next) || st.Scans != 1 || st.Refused[app.OutcomeExpired] != 1 {
				t.Fatalf("figures of the next day: %+v", st)
			}
		})
	}
}

// TestEODOnLeapDay: 29 February 2028 is a label date like any other; its
// codes print 280229 and expire at the start of 1 March. 2027 has no such
// day.
func TestEODOnLeapDay(t *testing.T) {
	for name, loc := range zones(t) {
		t.Run(name, func(t *testing.T) {
			svc, _, clock := mustOpen(t)
			clock.Set(time.Date(2028, 2, 28, 18, 0, 0, 0, loc))
			b, codes := mustIssue(t, svc, app.IssueRequest{Count: 2, Date: "2028-02-29", Expires: "eod"})
			if codes[0].Date != "280229" || b.ExpireAt != time.Date(2028, 3, 1, 0, 0, 0, 0, loc).Unix() {
				t.Fatalf("code date %s expiring %s, want 280229 expiring 2028-03-01 00:00", codes[0].Date, app.FormatTime(b.ExpireAt))
			}
			if _, err := app.Parse(codes[0].String()); err != nil {
				t.Fatalf("a leap-day code does not parse: %v", err)
			}
			redeemAt(t, svc, clock, time.Date(2028, 2, 29, 23, 59, 59, 0, loc), codes[0].String(), app.OutcomeRedeemed)
			redeemAt(t, svc, clock, time.Date(2028, 3, 1, 0, 0, 0, 0, loc), codes[1].String(), app.OutcomeExpired)
			if st := statsOf(t, svc, "2028-02-29"); st.Redeemed != 1 || st.Scans != 1 {
				t.Fatalf("figures of 2028-02-29: %+v", st)
			}
			if _, _, err := svc.Issue(context.Background(), app.IssueRequest{Count: 1, Date: "2027-02-29"}); app.KindOf(err) != app.KindInvalid {
				t.Fatalf("label date 2027-02-29: %v, want refused", err)
			}
		})
	}
}
