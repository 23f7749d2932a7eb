package web

import (
	"encoding/csv"
	"net/http"
	"strconv"

	"qrdesk/central"
)

// todayCSV is the day's figures per desk and in total, as CSV (English
// column names, for spreadsheets and scripts).
func (d *Dashboard) todayCSV(w http.ResponseWriter, r *http.Request, s session) {
	day, msg := d.dayOf(r)
	if msg != "" {
		http.Error(w, msg, http.StatusBadRequest)
		return
	}
	act, err := d.Store.DayActivity(r.Context(), day.Unix(), day.AddDate(0, 0, 1).Unix())
	if err != nil {
		d.fail(w, r, err)
		return
	}
	date := day.Format("2006-01-02")
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="qrdesk-`+date+`.csv"`)
	cw := csv.NewWriter(w)
	head := []string{"date", "desk", "issued", "redeemed", "refused"}
	for _, o := range central.RefusalOutcomes {
		head = append(head, "refused_"+o)
	}
	cw.Write(append(head, "conflicts"))
	row := func(name string, k central.DeskDay) {
		rec := []string{date, name, strconv.Itoa(k.Issued), strconv.Itoa(k.Redeemed), strconv.Itoa(k.RefusedTotal())}
		for _, o := range central.RefusalOutcomes {
			rec = append(rec, strconv.Itoa(k.Refused[o]))
		}
		cw.Write(append(rec, strconv.Itoa(k.Conflicts)))
	}
	for _, k := range act.Desks {
		row(k.Station, k)
	}
	row("TOTAL", act.Total())
	cw.Flush()
	if err := cw.Error(); err != nil {
		d.Log.Warn("dashboard: CSV export cut short", "error", err.Error())
	}
}
