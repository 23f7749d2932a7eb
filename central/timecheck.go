package central

import (
	"fmt"
	"time"

	"qrdesk/app"
)

// FutureTolerance is how far ahead of the server's clock an offline event
// time may be before it is suspect: desk clocks drift, but not by hours.
const FutureTolerance = 10 * 60

// EffectiveTime is DecideTime with the note's wording only.
func EffectiveTime(ev Event, issuedAt, now int64) (at int64, flag string) {
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
