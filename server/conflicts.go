package server

import (
	"net/http"
	"time"

	"qrdesk/app"
	"qrdesk/central"
)

// conflicts lists a day's conflicts (GET /v1/conflicts?date=, today by
// default) to a desk's token (docs/api.md).
func (a *API) conflicts(r *http.Request, st central.Station) (any, error) {
	day, err := dayRange(r.URL.Query().Get("date"), a.Now())
	if err != nil {
		return nil, err
	}
	list, err := a.Store.Conflicts(r.Context(), day.Unix(), day.AddDate(0, 0, 1).Unix())
	return map[string]any{"conflicts": list}, err
}

// dayRange reads YYYY-MM-DD ("" for today) as a local day.
func dayRange(date string, now time.Time) (time.Time, error) {
	d, err := app.ParseDate(date, now)
	if err != nil {
		return time.Time{}, central.Badf("date must be YYYY-MM-DD")
	}
	return d, nil
}
