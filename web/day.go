package web

import (
	"net/http"
	"time"
)

// dayOf reads the page's ?date=YYYY-MM-DD as a local day (today when
// absent); ok is false, with a message, when it is not a date.
func (d *Dashboard) dayOf(r *http.Request) (day time.Time, msg string) {
	today := d.Now()
	today = time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, today.Location())
	s := r.URL.Query().Get("date")
	if s == "" {
		return today, ""
	}
	day, err := time.ParseInLocation("2006-01-02", s, today.Location())
	if err != nil {
		return today, langOf(r).Tf("%q is not a date: pick one in the calendar, or type it as YYYY-MM-DD (e.g. 2026-11-29). Showing today instead.", s)
	}
	return day, ""
}

// dayNav is the date picker's state.
type dayNav struct {
	Date, Prev, Next, Today string
	IsToday                 bool
}

func newDayNav(day, now time.Time) dayNav {
	const f = "2006-01-02"
	return dayNav{Date: day.Format(f), Prev: day.AddDate(0, 0, -1).Format(f), Next: day.AddDate(0, 0, 1).Format(f),
		Today: now.Format(f), IsToday: day.Format(f) == now.Format(f)}
}
