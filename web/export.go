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
	act, err := d.dayActivity(r.Context(), day)
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
	head = append(head, "conflicts", "print_jobs", "labels_printed", "reprints")
	for _, c := range hereColumns {
		head = append(head, "refused_at_desk_"+c)
	}
	cw.Write(head)
	row := func(name string, k central.DeskDay) {
		rec := []string{date, name, strconv.Itoa(k.Issued), strconv.Itoa(k.Redeemed), strconv.Itoa(k.RefusedTotal())}
		for _, o := range central.RefusalOutcomes {
			rec = append(rec, strconv.Itoa(k.Refused[o]))
		}
		rec = append(rec, strconv.Itoa(k.Conflicts))
		// Empty, not 0, for a desk that sent no report of the day: it
		// may have printed, the server cannot know.
		if k.Reported {
			rec = append(rec, strconv.Itoa(k.PrintJobs), strconv.Itoa(k.LabelsPrinted), strconv.Itoa(k.Reprints))
			for _, n := range hereCounts(k.RefusedHere) {
				rec = append(rec, strconv.Itoa(n))
			}
		} else {
			rec = append(rec, "", "", "")
			for range hereColumns {
				rec = append(rec, "")
			}
		}
		cw.Write(rec)
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
