package central

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
)

// TestPerHour: quarter hours fold into the local hours of the day, in a
// time zone half an hour off UTC and on the days the clocks change.
func TestPerHour(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatalf("time zone data (Debian package tzdata): %v", err)
	}
	india := time.FixedZone("IST", 5*3600+1800)
	for _, c := range []struct {
		name  string
		day   time.Time
		hours int
	}{
		{"half-hour offset", time.Date(2026, 11, 29, 0, 0, 0, 0, india), 24},
		{"clocks forward", time.Date(2027, 3, 28, 0, 0, 0, 0, berlin), 23},
		{"clocks back", time.Date(2027, 10, 31, 0, 0, 0, 0, berlin), 25},
	} {
		t.Run(c.name, func(t *testing.T) {
			// One redemption at 00:00, 00:59, 09:30 and 23:59 local time, and
			// one each a second before and after the day.
			d := DayActivity{Quarters: map[int64]int{}}
			end := c.day.AddDate(0, 0, 1)
			for _, at := range []time.Time{c.day, c.day.Add(59 * time.Minute), c.day.Add(9*time.Hour + 30*time.Minute), end.Add(-time.Minute), c.day.Add(-time.Second), end} {
				d.Quarters[at.Unix()/QuarterSeconds]++
			}
			got := d.PerHour(c.day)
			want := make([]int, c.hours)
			want[0], want[9], want[c.hours-1] = 2, 1, 1
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("per hour\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestExplainNotHeld: a label the server does not hold is read for its
// letter and label date, and the desk of its letter (one not revoked
// before a revoked one); a letter no desk holds, or a label without
// letter, names no desk.
func TestExplainNotHeld(t *testing.T) {
	desks := []DeskState{
		{Station: Station{Name: "Old B", Letter: "B", RevokedAt: 5}},
		{Station: Station{Name: "Desk 2", Letter: "B"}},
		{Station: Station{Name: "Desk 1", Letter: "A"}},
	}
	parse := func(s string) app.Code {
		c, err := app.Parse(app.Normalize(s))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return c
	}
	for _, tc := range []struct {
		name, code, letter, date, desk string
	}{
		{"BoundLetter", "WH-261129-B0080-AX27VGKZJTLY-A9TF3Z2MT", "B", "2026-11-29", "Desk 2"},
		{"UnboundLetter", "261130-Q000104-AX27VGKZJTLY-A9TF3Z2MT", "Q", "2026-11-30", ""},
		{"NoLetter", "AX27VGKZJTLY-A9TF3Z2MT", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := ExplainNotHeld(parse(tc.code), desks)
			desk := ""
			if n.Desk != nil {
				desk = n.Desk.Name
			}
			if n.Letter != tc.letter || n.LabelDate != tc.date || desk != tc.desk {
				t.Fatalf("got letter %q, date %q, desk %q; want %q, %q, %q", n.Letter, n.LabelDate, desk, tc.letter, tc.date, tc.desk)
			}
		})
	}
}

// TestTooOldSaysWhatADeskMisses: a desk of protocol 3 decides as this
// server does and misses only the refs; one before clock offsets misses
// changes of labels; one before versions is told what the server still
// does for it; one of this protocol is not too old.
func TestTooOldSaysWhatADeskMisses(t *testing.T) {
	for _, tc := range []struct {
		protocol int
		want     string
	}{
		{1, "the server decides its scans while it is online"},
		{2, "does not understand every change the other desks make"},
		{3, "does not show the refs of other desks' batches"},
		{4, ""},
	} {
		got := DeskVersion{Protocol: tc.protocol}.TooOld()
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("protocol %d: %q, want %q", tc.protocol, got, tc.want)
		}
	}
}
