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
		return strings.TrimSuffix(strings.TrimSuffix(e.After.String(), "0s"), "0m")
	case ExpireEOD:
		return "eod"
	}
	return "never"
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
