package app

import "time"

// DateLayout is how qrdesk writes a day: label dates, --date flags, file
// names.
const DateLayout = "2006-01-02"

// Day returns local midnight of t's day.
func Day(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// ParseDate reads a day written YYYY-MM-DD as local midnight in now's time
// zone; "" means now's day. It is the one date parser of the desk, the
// server and their commands: a refused date says what to type.
func ParseDate(date string, now time.Time) (time.Time, error) {
	if date == "" {
		return Day(now), nil
	}
	d, err := time.ParseInLocation(DateLayout, date, now.Location())
	if err != nil {
		return time.Time{}, Errorf(KindInvalid, "date %q is not a date: use YYYY-MM-DD, e.g. %s", date, now.Format(DateLayout))
	}
	return d, nil
}

// FormatDate writes t's day as YYYY-MM-DD.
func FormatDate(t time.Time) string { return t.Format(DateLayout) }

// How far from today a batch's label date may be. A code prints its year
// with two digits, so a mistyped year (0026 for 2026, 9999) would print
// the same serial numbers as another year's day; and a restored desk
// learns the serials of its letter from the server for this many days
// back (the enrolment's serial marks), so it never issues a day it
// cannot check.
const (
	IssueDaysBack  = 31
	IssueDaysAhead = 366
)

// CheckIssueDate refuses a label date more than IssueDaysBack days before
// today or IssueDaysAhead after it (today by now).
func CheckIssueDate(day, now time.Time) error {
	today := Day(now)
	switch {
	case day.Before(today.AddDate(0, 0, -IssueDaysBack)):
		return Errorf(KindInvalid, "label date %s is more than %d days before today (%s): labels are issued for today or a coming day; check the year", FormatDate(day), IssueDaysBack, FormatDate(today))
	case day.After(today.AddDate(0, 0, IssueDaysAhead)):
		return Errorf(KindInvalid, "label date %s is more than a year after today (%s): check the year", FormatDate(day), FormatDate(today))
	}
	return nil
}
