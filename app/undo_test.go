package app

import (
	"testing"
	"time"
)

// Every allowed undo window is stored in a form that reads back the same:
// a stored setting that cannot be read back would stop every command.
func TestUndoWindowRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		out  string
	}{
		{"5m", 5 * time.Minute, "5m"}, {"90s", 90 * time.Second, "1m30s"}, {"1h", time.Hour, "1h"},
		{"90m", 90 * time.Minute, "1h30m"}, {"24h", 24 * time.Hour, "24h"}, {" 10M ", 10 * time.Minute, "10m"},
	} {
		d, err := ParseUndoWindow(tc.in)
		if err != nil || d != tc.want {
			t.Fatalf("ParseUndoWindow(%q) = %v, %v; want %v", tc.in, d, err, tc.want)
		}
		if got := FormatUndoWindow(d); got != tc.out {
			t.Fatalf("FormatUndoWindow(%v) = %q, want %q", d, got, tc.out)
		}
		if back, err := ParseUndoWindow(FormatUndoWindow(d)); err != nil || back != d {
			t.Fatalf("%q does not read back: %v, %v", FormatUndoWindow(d), back, err)
		}
	}
	for _, bad := range []string{"", "0", "59s", "25h", "2d", "five", "-5m"} {
		if _, err := ParseUndoWindow(bad); err == nil {
			t.Errorf("ParseUndoWindow(%q) accepted", bad)
		}
	}
}
