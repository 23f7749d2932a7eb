package app

import (
	"testing"
	"time"
)

// TestExpiryRoundTrip: every expiry is written as ParseExpiry reads it back
// to the same value ("90s" was once stored as "1m3", and every command then
// refused the settings as damaged).
func TestExpiryRoundTrip(t *testing.T) {
	for _, in := range []string{"never", "eod", "90s", "1m", "1m30s", "90m", "72h", "25h1m1s", "7d", "1.5m", "30d"} {
		e, err := ParseExpiry(in)
		if err != nil {
			t.Fatalf("ParseExpiry(%q): %v", in, err)
		}
		again, err := ParseExpiry(e.String())
		if err != nil || again != e {
			t.Errorf("%q is written %q, read back as %+v (%v), want %+v", in, e.String(), again, err, e)
		}
	}
	if got := (Expiry{Kind: ExpireAfter, After: 90 * time.Second}).String(); got != "1m30s" {
		t.Errorf("90s is written %q, want 1m30s", got)
	}
}
