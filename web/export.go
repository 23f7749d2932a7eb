package web

import (
	"encoding/csv"
	"mime"
	"net/http"
	"strconv"

	"qrdesk/central"
)

// todayCSV is the day's figures per desk and in total, as CSV (English
// column names, for spreadsheets and scripts), of the sites Today shows.
func (d *Dashboard) todayCSV(w http.ResponseWriter, r *http.Request, s session) {
	sites, msg, ok := d.siteView(w, r, s)
	if !ok {
		return
	}
	if msg != "" {
		http.Error(w, msg, http.StatusBadRequest)
		return
	}
	day, msg := d.dayOf(r)
	if msg != "" {
		http.Error(w, msg, http.StatusBadRequest)
		return
	}
	act, err := d.dayActivity(r.Context(), day, sites)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	date := day.Format("2006-01-02")
	disposition := `attachment; filename="qrdesk-` + date + `.csv"`
	if sites.Picked != "" {
		// FormatMediaType encodes a site's name that is not ASCII.
		disposition = mime.FormatMediaType("attachment", map[string]string{"filename": "qrdesk-" + date + "-" + sites.Picked + ".csv"})
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", disposition)
	cw := csv.NewWriter(w)
	head := []string{"date", "desk", "issued", "redeemed", "refused"}
	for _, o := range central.RefusalOutcomes {
		head = append(head, "refused_"+string(o))
	}
	head = append(head, "conflicts", "print_jobs", "labels_printed", "reprints")
	for _, c := range hereColumns {
		head = append(head, "refused_at_desk_"+c)
	}
	// The site last: the columns before it are where they were before sites.
	cw.Write(append(head, "site"))
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
		cw.Write(append(rec, k.Site))
	}
	for _, k := range act.Desks {
		row(k.Station, k)
	}
	// The total of the sites the page shows: its site is the one picked,
	// or the administrator's only one ("" for several).
	t := act.Total()
	t.Site = sites.Only()
	row("TOTAL", t)
	cw.Flush()
	if err := cw.Error(); err != nil {
		d.Log.Warn("dashboard: CSV export cut short", "error", err.Error())
	}
}
