package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"qrdesk/internal/testclock"
)

// localAt is h:m:s local time on the suite's day plus days.
func localAt(days, h, m, s int) time.Time {
	y, mo, d := testclock.Day().AddDate(0, 0, days).Date()
	return time.Date(y, mo, d, h, m, s, 0, time.Local)
}

type statsOut struct {
	Date                                     string
	Issued, Scans, Redeemed, Unused, Printed int
	Refused                                  map[string]int
}

// TestCommandsTakeTheDayFromTheirClock: every command takes "today", label
// dates and expiry from Env.Now: a label for tomorrow, scans at 23:59:59 and
// 00:00:00, today's figures either side of midnight, eod expiry, and a
// qrdesk process started on the desk's clock.
func TestCommandsTakeTheDayFromTheirClock(t *testing.T) {
	s := newStation(t)
	clock := testclock.New(localAt(0, 10, 0, 0))
	s.now = clock.Now
	today, tomorrow := testclock.Date(0), testclock.Date(1)

	var todays, tomorrows issueOut
	s.mustJSON(t, &todays, "issue", "--count", "2", "--expires", "eod")
	s.mustJSON(t, &tomorrows, "issue", "--count", "2", "--date", tomorrow, "--expires", "eod")
	if todays.Date != today || tomorrows.Date != tomorrow {
		t.Fatalf("label dates %s and %s, want %s and %s", todays.Date, tomorrows.Date, today, tomorrow)
	}
	if want := localAt(1, 0, 0, 0).Format("060102") + "-A0001-"; !strings.HasPrefix(tomorrows.Codes[0], want) {
		t.Fatalf("tomorrow's first code %s, want it to start %s (its own daily serial)", tomorrows.Codes[0], want)
	}
	if code, _, errOut := s.run(t, "issue", "--count", "1", "--date", testclock.Date(-1), "--expires", "eod"); code != ExitUsage || !strings.Contains(errOut, "already be expired") {
		t.Fatalf("a label for yesterday that expires at its end: exit %d %q", code, errOut)
	}

	var v struct{ Outcome string }
	scanAt := func(when time.Time, code, want string) {
		t.Helper()
		clock.Set(when)
		s.mustJSON(t, &v, "redeem", code)
		if v.Outcome != want {
			t.Fatalf("scan at %s: %s, want %s", when.Format("2006-01-02 15:04:05"), v.Outcome, want)
		}
	}
	scanAt(localAt(0, 23, 59, 59), todays.Codes[0], "redeemed")
	scanAt(localAt(1, 0, 0, 0), todays.Codes[1], "expired")
	scanAt(localAt(1, 0, 0, 0), tomorrows.Codes[0], "redeemed")

	var st statsOut
	s.mustJSON(t, &st, "stats")
	if st.Date != tomorrow || st.Scans != 2 || st.Redeemed != 1 || st.Refused["expired"] != 1 || st.Unused != 1 || st.Issued != 0 {
		t.Fatalf("stats at midnight: %+v, want %s: 2 scans, 1 redeemed, 1 expired, 1 unused, none issued", st, tomorrow)
	}
	s.mustJSON(t, &st, "stats", "--date", today)
	// The label refused as expired at midnight is still unused here: the
	// desk's clock alone does not store it expired (a close of the day does).
	if st.Date != today || st.Scans != 1 || st.Redeemed != 1 || st.Issued != 4 || st.Unused != 1 {
		t.Fatalf("stats of %s: %+v, want 1 scan, 1 redeemed, 4 issued, 1 unused", today, st)
	}

	// Tomorrow's label lives until tomorrow ends.
	clock.Set(localAt(1, 23, 59, 59))
	s.mustJSON(t, &v, "check", tomorrows.Codes[1])
	if v.Outcome != "valid" {
		t.Fatalf("tomorrow's label at 23:59:59 tomorrow: %s", v.Outcome)
	}
	clock.Set(localAt(2, 0, 0, 0))
	s.mustJSON(t, &v, "check", tomorrows.Codes[1])
	if v.Outcome != "expired" {
		t.Fatalf("tomorrow's label at midnight after it: %s", v.Outcome)
	}

	// A qrdesk process started by the test runs on the desk's clock.
	clock.Set(localAt(1, 12, 0, 0))
	out, err := s.proc("stats", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(out, &st)
	if st.Date != tomorrow || st.Scans != 2 {
		t.Fatalf("a qrdesk process: %+v, want the figures of %s", st, tomorrow)
	}
}
