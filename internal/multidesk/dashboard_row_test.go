package multidesk_test

import (
	"context"
	"testing"
	"time"

	"qrdesk/central"
	"qrdesk/internal/centraltest"
)

// dashboardRow is the dashboard's row of station for date (YYYY-MM-DD), as
// the Today page counts it: the day of the server's zone (the machine's).
func dashboardRow(t *testing.T, h *centraltest.Harness, station, date string) central.DeskDay {
	t.Helper()
	d, err := time.ParseInLocation("2006-01-02", date, time.Local)
	if err != nil {
		t.Fatal(err)
	}
	dash, err := h.DB.DayActivity(context.Background(), d.Unix(), d.AddDate(0, 0, 1).Unix())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range dash.Desks {
		if r.Station == station {
			return r
		}
	}
	return central.DeskDay{Station: station}
}
