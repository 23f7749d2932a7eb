package app

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ExpiryKind says how a code's expiry time is computed at issue.
type ExpiryKind string

const (
	ExpireNever ExpiryKind = "never"
	ExpireAfter ExpiryKind = "after" // a duration after issue
	ExpireEOD   ExpiryKind = "eod"   // end of the label date (local midnight)
)

// Expiry is a parsed expiry rule: "never", "eod" or a duration like "72h" or "7d".
type Expiry struct {
	Kind  ExpiryKind
	After time.Duration
}

// ParseExpiry reads "never", "eod" or a positive duration ("90m", "72h", "7d").
func ParseExpiry(s string) (Expiry, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "never":
		return Expiry{Kind: ExpireNever}, nil
	case "eod":
		return Expiry{Kind: ExpireEOD}, nil
	}
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		d = time.Duration(n) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d < time.Minute {
		return Expiry{}, fmt.Errorf("expiry %q is not understood: use never, eod (end of the label's day) or a duration such as 90m, 72h or 7d", s)
	}
	return Expiry{Kind: ExpireAfter, After: d}, nil
}

func (e Expiry) String() string {
	switch e.Kind {
	case ExpireAfter:
		if e.After%(24*time.Hour) == 0 {
			return fmt.Sprintf("%dd", e.After/(24*time.Hour))
		}
		return shortDuration(e.After)
	case ExpireEOD:
		return "eod"
	}
	return "never"
}

// shortDuration writes d as ParseExpiry reads it back: 90m as 1h30m, 90s
// as 1m30s (trimming Duration.String's "0s" once made that "1m3", which
// then failed every command as damaged settings).
func shortDuration(d time.Duration) string {
	if d%time.Second != 0 {
		return d.String()
	}
	var b strings.Builder
	if h := d / time.Hour; h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m := d % time.Hour / time.Minute; m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if s := d % time.Minute / time.Second; s > 0 || b.Len() == 0 {
		fmt.Fprintf(&b, "%ds", s)
	}
	return b.String()
}

// At returns the Unix expiry time of a code issued at now with label day
// labelDay (local midnight), 0 for never.
func (e Expiry) At(now, labelDay time.Time) int64 {
	switch e.Kind {
	case ExpireAfter:
		return now.Add(e.After).Unix()
	case ExpireEOD:
		return labelDay.AddDate(0, 0, 1).Unix()
	}
	return 0
}
