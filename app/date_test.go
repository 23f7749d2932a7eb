package app

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestParseDate: the one date parser reads a day in the zone of the clock
// it is given, "" is that clock's day, and a bad date says what to type.
func TestParseDate(t *testing.T) {
	kiritimati := time.FixedZone("LINT", 14*3600)
	now := time.Date(2028, 2, 29, 23, 30, 0, 0, kiritimati)
	for _, tc := range []struct {
		in, want string
		bad      bool
	}{
		{"", "2028-02-29", false},
		{"2028-02-29", "2028-02-29", false},
		{"2027-02-29", "", true},
		{"29.02.2028", "", true},
		{"2028-2-1", "", true},
	} {
		d, err := ParseDate(tc.in, now)
		if tc.bad {
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindInvalid || !strings.Contains(e.Message, "YYYY-MM-DD, e.g. 2028-02-29") {
				t.Fatalf("ParseDate(%q) = %v, %v; want a clear refusal", tc.in, d, err)
			}
			continue
		}
		if err != nil || FormatDate(d) != tc.want || d.Location() != kiritimati || d.Hour() != 0 {
			t.Fatalf("ParseDate(%q) = %v, %v; want local midnight of %s", tc.in, d, err, tc.want)
		}
	}
}
