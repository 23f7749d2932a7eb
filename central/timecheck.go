package central

import (
	"fmt"
	"math"
	"time"

	"qrdesk/app"
	"qrdesk/protocol"
)

// FutureTolerance is how far ahead of the server's clock an offline event
// time may be before it is suspect: desk clocks drift, but not by hours.
const FutureTolerance = 10 * 60

// OffsetTrustedFor is how long after its measurement a desk's clock offset
// is trusted to correct its offline times (app.OffsetTrustedFor), in
// seconds.
const OffsetTrustedFor = int64(app.OffsetTrustedFor / time.Second)

// CorrectedTime is an offline event's time by the server's clock: the
// desk's time plus the offset the desk last measured (rounded to the
// second), with FlagClockUnverified when that offset cannot be trusted
// (older than OffsetTrustedFor, or measured "after" the event: the desk's
// clock was set back since, by a process that did not see it happen). An event
// without an offset keeps the desk's time.
func CorrectedTime(ev protocol.Event) (int64, Note) {
	if ev.ClockOffsetMS == nil {
		return ev.At, Note{}
	}
	off := *ev.ClockOffsetMS
	at := saturatingAdd(ev.At, app.OffsetSeconds(off))
	if !app.AgeTrusted(ev.ClockAge) {
		return at, Note{}.add(FlagClockUnverified, fmt.Sprintf(wordUnverified, app.FormatOffset(off), formatAge(ev.ClockAge)))
	}
	return at, Note{}
}

// saturatingAdd is a+b clamped to int64: a desk's time may be absurd.
func saturatingAdd(a, b int64) int64 {
	switch {
	case b > 0 && a > math.MaxInt64-b:
		return math.MaxInt64
	case b < 0 && a < math.MinInt64-b:
		return math.MinInt64
	}
	return a + b
}

// formatAge says how long before the event an offset was measured.
func formatAge(age int64) string {
	if age < 0 {
		return "after the event by the desk's clock (it was set back since)"
	}
	return app.FormatDuration(time.Duration(min(age, 1<<32))*time.Second) + " before the event"
}

// EffectiveTime is DecideTime with the note's wording only.
func EffectiveTime(ev protocol.Event, issuedAt, now int64) (at int64, flag string) {
	at, n := DecideTime(ev, issuedAt, now)
	return at, n.Text
}

// formatAt shows a desk's time, even an absurd one, without overflowing.
func formatAt(at int64) string {
	if at > 1<<40 || at < 0 {
		return fmt.Sprintf("Unix time %d", at)
	}
	return app.FormatTime(at)
}

// IssuedNotBefore is the earliest time a label can have been issued: the
// issue time its desk reported, but never earlier than the day before the
// date printed in it (labels are issued for today or tomorrow), so a desk
// whose clock went back to 1970 cannot make its labels look that old.
func IssuedNotBefore(code string, createdAt int64, loc *time.Location) int64 {
	c, err := app.Parse(code)
	if err != nil || c.LabelDate() == "" {
		return createdAt
	}
	day, err := time.ParseInLocation("2006-01-02", c.LabelDate(), loc)
	if err != nil {
		return createdAt
	}
	return max(createdAt, day.AddDate(0, 0, -1).Unix())
}
