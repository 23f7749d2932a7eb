package central

import (
	"fmt"
	"time"

	"qrdesk/app"
)

// FutureTolerance is how far ahead of the server's clock an offline event
// time may be before it is suspect: desk clocks drift, but not by hours.
const FutureTolerance = 10 * 60

// EffectiveTime is the time the server decides an event at. Online, it is
// the server's clock. Offline, the desk's clock, unless that is not
// plausible: before the label was issued, or ahead of the server's clock
// by more than FutureTolerance. Such a time is kept in the event row but
// flagged, and the server's clock is used instead, so a wrong desk clock
// can neither make its redemption the one of record nor file it under
// another day.
func EffectiveTime(ev Event, issuedAt, now int64) (at int64, flag string) {
	if !ev.Offline {
		return now, ""
	}
	switch {
	case ev.At > now+FutureTolerance:
		return now, fmt.Sprintf("desk clock ahead: said %s, server received it at %s", formatAt(ev.At), app.FormatTime(now))
	case issuedAt > 0 && ev.At < issuedAt-FutureTolerance:
		return now, fmt.Sprintf("desk clock behind: said %s, before the label was issued (%s)", formatAt(ev.At), app.FormatTime(issuedAt))
	}
	return ev.At, ""
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
