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
