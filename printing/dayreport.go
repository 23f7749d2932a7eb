package printing

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"qrdesk/app"

	"github.com/go-pdf/fpdf"
)

// DayReport is the one-page close of a day, in the words of the caller
// (English on the command line, the window's language in the window).
type DayReport struct {
	Title      string
	Header     []string    // station, closed at, by whom
	Rows       []ReportRow // the figures
	SideTitle  string      // "Redeemed by hour"
	Side       []ReportRow
	NotesTitle string   // "Changed since the close at 17:02"
	Notes      []string // one line each
	Created    time.Time
}

// ReportRow is one figure; Sub rows are a breakdown of the row above.
type ReportRow struct {
	Label string
	Value string
	Sub   bool
}

// A4 portrait, in mm.
const (
	reportWidth, reportHeight = 210.0, 297.0
	reportMargin              = 18.0
)

// WriteDayReportPDF writes r as a single A4 page: the figures on the left,
// the hours on the right, the changes since the last close below. The
// line height shrinks so that everything fits on the one page.
func WriteDayReportPDF(w io.Writer, r DayReport) error {
	texts := append([]string{r.Title, r.SideTitle, r.NotesTitle}, r.Header...)
	texts = append(texts, r.Notes...)
	for _, row := range append(r.Rows, r.Side...) {
		texts = append(texts, row.Label, row.Value)
	}
	pdf := newPDF(Template{PageWidth: reportWidth, PageHeight: reportHeight}, r.Created, texts)
	pdf.AddPage()
	y := reportMargin + 6
	reportText(pdf, reportMargin, y, r.Title, 16)
	y += 8
	for _, h := range r.Header {
		reportText(pdf, reportMargin, y, h, 10)
		y += 5
	}
	y += 4
	lines := max(len(r.Rows), len(r.Side)+1)
	if len(r.Notes) > 0 {
		lines += len(r.Notes) + 2
	}
	step := min(6.0, (reportHeight-reportMargin-y)/float64(max(lines, 1)))
	size := min(11.0, step*2.2)
	pdf.SetDrawColor(200, 200, 200)
	pdf.SetLineWidth(0.2)
	left, leftValue := reportMargin, reportMargin+95
	rowY := y
	for _, row := range r.Rows {
		x := left
		if row.Sub {
			x += 6
		}
		reportText(pdf, x, rowY, row.Label, size)
		reportRight(pdf, leftValue, rowY, row.Value, size)
		if !row.Sub {
			pdf.Line(left, rowY+step*0.3, leftValue, rowY+step*0.3)
		}
		rowY += step
	}
	right, rightValue := reportMargin+110, reportWidth-reportMargin
	sideY := y
	if r.SideTitle != "" {
		reportText(pdf, right, sideY, r.SideTitle, size)
		pdf.Line(right, sideY+step*0.3, rightValue, sideY+step*0.3)
		sideY += step
	}
	for _, row := range r.Side {
		reportText(pdf, right+4, sideY, row.Label, size)
		reportRight(pdf, rightValue, sideY, row.Value, size)
		sideY += step
	}
	if len(r.Notes) > 0 {
		noteY := max(rowY, sideY) + step
		reportText(pdf, left, noteY, r.NotesTitle, size)
		for _, n := range r.Notes {
			noteY += step
			reportText(pdf, left+6, noteY, n, size)
		}
	}
	if err := pdf.Error(); err != nil {
		return err
	}
	return pdf.Output(w)
}

// reportText writes s at (x, y) in the label fonts (writeText).
func reportText(pdf *fpdf.Fpdf, x, y float64, s string, size float64) {
	writeText(pdf, x, y, s, size)
}

// stringWidth is the width of s in mm as writeText writes it.
func stringWidth(pdf *fpdf.Fpdf, s string, size float64) float64 {
	if isASCII(s) {
		pdf.SetFont(latinFont, "", size)
		return pdf.GetStringWidth(s)
	}
	return chainWidth(s) * size * ptMM
}

// reportRight writes s ending at x (figures line up on the right).
func reportRight(pdf *fpdf.Fpdf, x, y float64, s string, size float64) {
	reportText(pdf, x-stringWidth(pdf, s, size), y, s, size)
}

// DayCloseReport lays out a close of the day: tr gives the words for a
// key (app.FigureRow keys and the page's own: title, station, closed, by,
// expired_now, by_hour, changes, no_changes, change) with English as the
// default; "%s" in the words of redeemed_by, redeemed_hour and changes is
// filled in, and change takes the figure, its value before and now. Times are shown in loc, the desk's zone.
func DayCloseReport(dc app.DayClose, loc *time.Location, tr func(key, english string) string) DayReport {
	at := func(unix int64) string { return time.Unix(unix, 0).In(loc).Format("2006-01-02 15:04") }
	r := DayReport{
		Title:     tr("title", "Day closed") + ": " + dc.Figures.Date,
		SideTitle: tr("by_hour", "Redeemed by hour"),
		Created:   time.Unix(dc.ClosedAt, 0).In(loc),
		Header: []string{
			tr("station", "Station") + ": " + dc.Station,
			tr("closed", "Closed at") + ": " + at(dc.ClosedAt) + "  " + tr("by", "by") + " " + dc.Operator,
		},
	}
	if dc.ExpiredNow > 0 {
		r.Header = append(r.Header, fmt.Sprintf("%s: %d", tr("expired_now", "Unused labels expired by this close"), dc.ExpiredNow))
	}
	for _, row := range dc.Figures.Rows() {
		rr := ReportRow{Label: FigureLabel(row.Key, row.Label, tr), Value: strconv.Itoa(row.Value), Sub: row.Sub}
		if strings.HasPrefix(row.Key, "redeemed_hour:") {
			r.Side = append(r.Side, rr)
			continue
		}
		r.Rows = append(r.Rows, rr)
	}
	if dc.PreviousAt != 0 {
		r.NotesTitle = strings.ReplaceAll(tr("changes", "Changed since the close at %s"), "%s", at(dc.PreviousAt))
		for _, c := range dc.Changes {
			r.Notes = append(r.Notes, fmt.Sprintf(tr("change", "%s: %d, now %d"), FigureLabel(c.Key, c.Label, tr), c.Before, c.Now))
		}
		if len(dc.Changes) == 0 {
			r.Notes = append(r.Notes, tr("no_changes", "nothing changed"))
		}
	}
	return r
}

// FigureLabel gives a figure's words: redeemed_by:NAME and
// redeemed_hour:HH:00 fill their argument into the words of their base
// key; the others are looked up whole.
func FigureLabel(key, english string, tr func(key, english string) string) string {
	base, arg, _ := strings.Cut(key, ":")
	switch base {
	case "redeemed_by":
		if arg == "" {
			arg = "-"
		}
		return strings.ReplaceAll(tr(base, "by %s"), "%s", arg)
	case "redeemed_hour":
		return strings.ReplaceAll(tr(base, "from %s"), "%s", arg)
	}
	return tr(key, english)
}
