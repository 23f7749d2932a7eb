package central

import (
	"time"

	"qrdesk/app"
)

// What only a desk knows, reported at the end of its every sync: its
// outbox and what it printed on its label day. The server keeps the latest
// report per desk and day for the dashboard; nothing it decides reads it.

// StatusReport is a desk's report as it sends it.
type StatusReport = app.DeskReport

// DeskStatus is a desk's latest report of one day.
type DeskStatus struct {
	Station string
	StatusReport
	ReceivedAt int64 // the server's clock
	// Site is the name of the desk's site (DeskStatuses; "" elsewhere).
	Site string
}

// Limits of a report.
const (
	// MaxStatusCount bounds each count: far above any desk's day.
	MaxStatusCount = 10_000_000
	// StatusDays is how far the report's date may be from the server's
	// day: a desk in another time zone is a day away, a desk whose clock
	// is months off would only fill the table with days nobody reads.
	StatusDays = 2
)

// ValidateStatus checks a report against the server's clock now.
func ValidateStatus(r StatusReport, now time.Time) error {
	day, err := time.ParseInLocation(app.DateLayout, r.Date, now.Location())
	if err != nil {
		return Badf("date must be the desk's label day as YYYY-MM-DD, e.g. %s", now.Format(app.DateLayout))
	}
	if d := day.Sub(app.Day(now)); d > StatusDays*24*time.Hour || d < -StatusDays*24*time.Hour {
		return Badf("date %s is more than %d days from the server's day (%s): check the desk's clock", r.Date, StatusDays, now.Format(app.DateLayout))
	}
	for _, f := range []struct {
		name string
		n    int
	}{{"events_waiting", r.EventsWaiting}, {"print_jobs", r.PrintJobs}, {"labels_printed", r.LabelsPrinted}, {"reprints", r.Reprints},
		{"refused_here.already_used", r.Refusals().AlreadyUsed}, {"refused_here.disabled", r.Refusals().Disabled},
		{"refused_here.expired", r.Refusals().Expired}, {"refused_here.unknown", r.Refusals().Unknown},
		{"refused_here.forged", r.Refusals().Forged}, {"not_understood", r.NotUnderstood}} {
		if f.n < 0 || f.n > MaxStatusCount {
			return Badf("%s must be 0 to %d", f.name, MaxStatusCount)
		}
	}
	switch {
	case r.Reprints > r.PrintJobs:
		return Badf("reprints (%d) cannot exceed print_jobs (%d): a reprint is one of the day's print jobs", r.Reprints, r.PrintJobs)
	case r.At <= 0:
		return Badf("at must be Unix seconds")
	case (r.DayFrom != 0 || r.DayTo != 0) && (r.DayTo-r.DayFrom < 22*3600 || r.DayTo-r.DayFrom > 26*3600):
		return Badf("day_from and day_to must bound the desk's day of date (Unix seconds, 23 to 25 hours apart)")
	case r.UTCOffset != nil && (*r.UTCOffset < -MaxUTCOffset || *r.UTCOffset > MaxUTCOffset):
		return Badf("utc_offset must be the desk's time zone in seconds east of UTC, -%d to %d", MaxUTCOffset, MaxUTCOffset)
	}
	return nil
}

// MaxUTCOffset bounds a desk's time zone offset either way (the zones in
// use reach -12 h and +14 h).
const MaxUTCOffset = 18 * 3600

// StatusTime is the time a report is kept under, on the server's clock: the
// desk's (put on the server's clock by the desk when it can, app.ClockNow),
// but never after the server received it. The latest report wins by this
// time, so one sent with a clock hours ahead must not make the server drop
// the desk's honest reports for as long.
func StatusTime(r StatusReport, now time.Time) int64 {
	return min(r.At, now.Unix())
}
