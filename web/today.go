package web

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/protocol"
)

// The Today page: per desk and in total, labels issued, redemptions and
// refusals by reason, and redemptions per hour as a bar chart.

type todayData struct {
	Nav      dayNav
	Paused   bool
	Desks    []deskRow
	Total    deskRow
	Outcomes []protocol.Outcome
	Chart    chart
	// BySite are the sites' figures, when the page shows several sites.
	BySite []siteRow
}

type deskRow struct {
	central.DeskDay
	Refused []int // in the order of Outcomes
	Here    []int // refused at the desk alone, in the order of hereColumns
}

func newDeskRow(d central.DeskDay) deskRow {
	row := deskRow{DeskDay: d, Here: hereCounts(d.RefusedHere)}
	for _, o := range central.RefusalOutcomes {
		row.Refused = append(row.Refused, d.Refused[o])
	}
	return row
}

// Scanned is every scan of the row's desks the figures know of: the
// redemptions the server decided (redeemed, refused, conflicts) and the
// scans the desks refused alone. A redemption taken back is not counted.
func (r deskRow) Scanned() int {
	return r.Redeemed + r.RefusedTotal() + r.Conflicts + r.RefusedHere.Total()
}

// AllRefused is every refusal of the row's desks: the server's and the
// ones the desks decided alone (as reported). The headline counts both, as
// Scanned does; it used to count the server's alone, "Refused 0" over a
// table listing the desks' own.
func (r deskRow) AllRefused() int { return r.RefusedTotal() + r.RefusedHere.Total() }

// siteRow is one site's day: its desks added up.
type siteRow struct {
	deskRow
	Desks int // desks with figures of the day
}

// bySite adds up the desks of act per site, for every site of sites (one
// without figures too).
func bySite(act central.DayActivity, sites []central.Site) []siteRow {
	var out []siteRow
	for _, s := range sites {
		var day central.DayActivity
		for _, k := range act.Desks {
			if k.Site == s.Name {
				day.Desks = append(day.Desks, k)
			}
		}
		t := day.Total()
		t.Station, t.Site = "", s.Name
		out = append(out, siteRow{deskRow: newDeskRow(t), Desks: len(day.Desks)})
	}
	return out
}

// hereColumns are the reasons of the refusals a desk decided alone, in the
// order of the Today page's columns and the CSV's.
var hereColumns = []string{"already_used", "disabled", "expired", "unknown", "forged"}

func hereCounts(r app.DeskRefusals) []int {
	return []int{r.AlreadyUsed, r.Disabled, r.Expired, r.Unknown, r.Forged}
}

func (d *Dashboard) today(w http.ResponseWriter, r *http.Request, s session) {
	sites, siteMsg, ok := d.siteView(w, r, s)
	if !ok {
		return
	}
	day, msg := d.dayOf(r)
	act, err := d.dayActivity(r.Context(), day, sites)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	data := todayData{Nav: newDayNav(day, d.Now()), Total: newDeskRow(act.Total()), Outcomes: central.RefusalOutcomes,
		Chart: newChart(day, act.PerHour(day))}
	for _, k := range act.Desks {
		data.Desks = append(data.Desks, newDeskRow(k))
	}
	if sites.Only() == "" {
		data.BySite = bySite(act, sites.Visible)
	}
	p := page{Title: "Today", Nav: "today", Error: joinMsg(msg, siteMsg), Data: data, Sites: sites}
	// Today's page follows the desks by reloading itself, unless paused
	// (to read it undisturbed); other days do not change much.
	data.Paused = r.URL.Query().Get("pause") != ""
	if data.Nav.IsToday && !data.Paused {
		p.Refresh = int(d.Refresh / time.Second)
	}
	p.Data = data
	d.render(w, r, http.StatusOK, "today", signedIn(p, s))
}

// joinMsg puts two messages of a page in one ("" left out).
func joinMsg(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + " " + b
}

// dayActivity is the server's counts of a local day for the sites the
// page shows, with what their desks reported they printed on it (their
// label day).
func (d *Dashboard) dayActivity(ctx context.Context, day time.Time, sites siteView) (central.DayActivity, error) {
	act, err := d.Store.SiteDayActivity(ctx, day.Unix(), day.AddDate(0, 0, 1).Unix(), sites.IDs())
	if err != nil {
		return act, err
	}
	reports, err := d.Store.DeskStatuses(ctx, day.Format(app.DateLayout))
	if err != nil {
		return act, err
	}
	reports = slices.DeleteFunc(reports, func(r central.DeskStatus) bool { return !sites.Shows(r.Site) })
	act.AddPrinted(reports)
	return act, nil
}

// chart is the redemptions-per-hour bar chart, drawn as inline SVG.
type chart struct {
	Bars          []bar
	Max           int
	Width, Height int
	Baseline      int // y of the axis
}

type bar struct {
	X, Y, W, H int
	N          int
	Label      string // the hour, under every third bar
	Title      string // 09:00–10:00: 12
}

const (
	chartBarWidth = 24
	chartGap      = 6
	chartPlot     = 140 // height of the tallest bar
	chartTop      = 18  // room for the count above a bar
)

func newChart(day time.Time, hours []int) chart {
	c := chart{Width: len(hours) * (chartBarWidth + chartGap), Height: chartTop + chartPlot + 22, Baseline: chartTop + chartPlot}
	for _, n := range hours {
		c.Max = max(c.Max, n)
	}
	for i, n := range hours {
		h := 0
		if c.Max > 0 {
			h = n * chartPlot / c.Max
		}
		if n > 0 && h < 2 {
			h = 2 // a single redemption stays visible
		}
		start := day.Add(time.Duration(i) * time.Hour)
		b := bar{X: i*(chartBarWidth+chartGap) + chartGap/2, Y: c.Baseline - h, W: chartBarWidth, H: h, N: n,
			Title: fmt.Sprintf("%s–%s: %d", start.Format("15:04"), start.Add(time.Hour).Format("15:04"), n)}
		if i%3 == 0 {
			b.Label = strconv.Itoa(start.Hour())
		}
		c.Bars = append(c.Bars, b)
	}
	return c
}
