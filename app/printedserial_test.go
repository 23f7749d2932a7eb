package app

import "testing"

func TestPrintedSerial(t *testing.T) {
	for _, tc := range []struct {
		in      string
		station string
		serial  int
		ok      bool
	}{
		{"A0007", "A", 7, true},
		{"Z12345678", "Z", 12345678, true},
		{"A07", "", 0, false},        // too few digits
		{"A123456789", "", 0, false}, // too many
		{"0007", "", 0, false},       // no station letter
		{"AB007", "", 0, false},
		{"", "", 0, false},
	} {
		st, n, ok := PrintedSerial(tc.in)
		if st != tc.station || n != tc.serial || ok != tc.ok {
			t.Errorf("PrintedSerial(%q) = %q, %d, %v; want %q, %d, %v", tc.in, st, n, ok, tc.station, tc.serial, tc.ok)
		}
	}
}
