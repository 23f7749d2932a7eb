// Package testclock is the clock of qrdesk's tests: the day the suite
// pretends it is, and clocks that start at a pinned instant.
//
// The suite's day is $QRDESK_TEST_DATE (YYYY-MM-DD, in the local time zone)
// or DefaultDate, so the whole suite can be run as if it were any day:
//
//	TZ=Europe/Berlin QRDESK_TEST_DATE=2027-03-28 go test ./...
//
// Only test code imports this package (and qrdesk-server built with the
// qrdesk_testclock tag, for the CLI tests that start it as a process): the
// qrdesk and qrdesk-server binaries a user runs have no way to pin their
// clock. TestReleaseBinariesHaveNoTestClock checks that.
package testclock

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// Environment variables read by the tests (never by a release binary).
const (
	// DateEnv picks the suite's day, YYYY-MM-DD.
	DateEnv = "QRDESK_TEST_DATE"
	// NowEnv hands a child process its parent's clock reading (RFC 3339
	// with nanoseconds); the child's clock runs on from there.
	NowEnv = "QRDESK_TEST_NOW"
)

// DefaultDate is the suite's day when $QRDESK_TEST_DATE is not set.
const DefaultDate = "2026-11-29"

// BaseHour is the local hour at which the suite's clocks start: far from
// either midnight, so a run of the suite never crosses into another day.
const BaseHour = 10

// Day returns local midnight of the suite's day. A malformed
// $QRDESK_TEST_DATE panics: a test run on an unknown day proves nothing.
func Day() time.Time {
	date := os.Getenv(DateEnv)
	if date == "" {
		date = DefaultDate
	}
	d, err := time.ParseInLocation("2006-01-02", date, time.Local)
	if err != nil {
		panic(fmt.Sprintf("%s=%q is not a date: use YYYY-MM-DD", DateEnv, date))
	}
	return d
}

// Base returns BaseHour:00 local time on the suite's day.
func Base() time.Time {
	y, m, d := Day().Date()
	return time.Date(y, m, d, BaseHour, 0, 0, 0, time.Local)
}

// Date returns the suite's day plus days, as YYYY-MM-DD.
func Date(days int) string { return Day().AddDate(0, 0, days).Format("2006-01-02") }

// Running returns a clock that reads start now and then advances with real
// elapsed time, so timeouts, "offline for 10 s" windows and expiry keep
// working while the day is pinned.
func Running(start time.Time) func() time.Time {
	t0 := time.Now()
	return func() time.Time { return start.Add(time.Since(t0)) }
}

// Env is the NowEnv=… entry that makes a child process's clock continue
// from now.
func Env(now time.Time) string { return NowEnv + "=" + now.Format(time.RFC3339Nano) }

// FromEnv returns the running clock a parent handed this process through
// NowEnv, in the local time zone, or nil when there is none.
func FromEnv() (func() time.Time, error) {
	v := os.Getenv(NowEnv)
	if v == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return nil, fmt.Errorf("%s=%q: %w", NowEnv, v, err)
	}
	return Running(t.Local()), nil
}

// Clock is a clock that moves only when told to, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a Clock reading t.
func New(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's reading.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
