package ui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	"qrdesk/printing"
)

// closeDayDialog closes today from the Today screen: it asks whether the
// day's unused labels expire, closes the day, then shows the figures with
// what changed since an earlier close, and saves the page as a PDF.
type closeDayDialog struct {
	env    *env
	expire *widget.Check
	result *widget.Label   // expired now, and the changes since the last close
	rows   *fyne.Container // the figures, label and value
	text   string          // everything shown, as text (tests read it)
	save   *keyButton
	closed *app.DayClose
	onDone func() // the Today screen reloads its figures

	question *dialog.ConfirmDialog // the question while it is up (ask)
}

func newCloseDayDialog(e *env, onDone func()) *closeDayDialog {
	d := &closeDayDialog{env: e, onDone: onDone}
	d.expire = widget.NewCheck(T("Expire the day's labels that are still unused"), nil)
	d.result = widget.NewLabel("")
	d.result.Wrapping = fyne.TextWrapWord
	d.rows = container.NewVBox()
	d.save = newKeyButton(T("Save PDF"), d.askSave)
	return d
}

// ask shows the question, which Enter answers yes and Esc no, as the
// window's other questions; Close runs the close off the UI goroutine.
func (d *closeDayDialog) ask() {
	body := container.NewVBox(widget.NewLabel(T("Close {{.Date}}? The figures are recorded; closing again later shows what changed.",
		map[string]any{"Date": app.Day(d.env.svc.ClockNow(context.Background())).Format("2006-01-02")})), d.expire)
	d.question = d.env.confirmWith(T("Close the day"), T("Close the day"), body, func(ok bool) {
		if ok {
			d.run()
		}
	})
}

// Expiring the day's unused labels changes labels, so it needs a
// supervisor (signed in, or approving this close) as Disable and Replace
// do; the close is then recorded under the supervisor's name. A close that
// only records the figures does not.
func (d *closeDayDialog) run() {
	expire := d.expire.Checked
	by := d.env.operator()
	if expire {
		name, ok := d.env.supervisor(T("Close the day and expire its unused labels"), d.run)
		if !ok {
			return
		}
		by = name
	}
	d.env.background(func() {
		dc, err := d.env.svc.CloseDay(context.Background(), app.CloseDayRequest{ExpireUnused: expire, Operator: by})
		fyne.Do(func() {
			if err != nil {
				d.env.showError(err)
				return
			}
			d.show(dc)
			if d.onDone != nil {
				d.onDone()
			}
		})
	})
}

// show lists the figures as the page does, in the window's language.
func (d *closeDayDialog) show(dc app.DayClose) {
	d.closed = &dc
	d.text = closeDayText(dc)
	d.rows.Objects = nil
	for _, r := range dc.Figures.Rows() {
		name := widget.NewLabel(printing.FigureLabel(r.Key, r.Label, dayWords))
		if !r.Sub {
			name.TextStyle = fyne.TextStyle{Bold: true}
		} else {
			name.SetText("      " + name.Text)
		}
		value := widget.NewLabelWithStyle(fmt.Sprint(r.Value), fyne.TextAlignTrailing, name.TextStyle)
		d.rows.Add(container.NewBorder(nil, nil, nil, value, name))
	}
	d.result.SetText(changesText(dc) + "\n" + allDesksText(dc.Figures.AllDesks))
	content := container.NewBorder(nil, d.save, nil, nil, container.NewVScroll(container.NewVBox(d.rows, d.result)))
	dlg := dialog.NewCustom(T("Day closed: {{.Date}}", map[string]any{"Date": dc.Figures.Date}), T("Close"), content, d.env.win)
	dlg.Resize(fyne.NewSize(560, 720))
	dlg.Show()
}

// closeDayText is the figures as text, followed by the changes since the
// previous close.
func closeDayText(dc app.DayClose) string {
	var b bytes.Buffer
	for _, r := range dc.Figures.Rows() {
		fmt.Fprintf(&b, "%s: %d\n", printing.FigureLabel(r.Key, r.Label, dayWords), r.Value)
	}
	b.WriteString(changesText(dc))
	b.WriteString("\n" + allDesksText(dc.Figures.AllDesks))
	return b.String()
}

// changesText says how many labels this close expired and what changed
// since the previous close.
func changesText(dc app.DayClose) string {
	var b bytes.Buffer
	if dc.ExpiredNow > 0 {
		fmt.Fprintf(&b, "%s: %d\n", T("Unused labels expired by this close"), dc.ExpiredNow)
	}
	if dc.PreviousAt != 0 {
		fmt.Fprintf(&b, "\n%s\n", T("Changed since the close at {{.At}}", map[string]any{"At": app.FormatTime(dc.PreviousAt)}))
		if len(dc.Changes) == 0 {
			fmt.Fprintf(&b, "  %s\n", T("nothing changed"))
		}
		for _, c := range dc.Changes {
			fmt.Fprintf(&b, "  %s\n", T("{{.Figure}}: {{.Before}}, now {{.Now}}", map[string]any{"Figure": printing.FigureLabel(c.Key, c.Label, dayWords), "Before": c.Before, "Now": c.Now}))
		}
	}
	return b.String()
}

// askSave writes the day's page where the labels' Save PDF and Export CSV
// write (~/Documents/qrdesk, never overwriting) and says where: one rule
// for every file the window saves, and no file dialog opening in the home
// folder.
func (d *closeDayDialog) askSave() {
	if d.closed == nil {
		return
	}
	dc := *d.closed
	d.env.background(func() {
		dir, err := d.env.saveFolder()
		if err == nil {
			err = os.MkdirAll(dir, 0o755)
		}
		path := ""
		if err == nil {
			path = freePath(dir, "qrdesk-day-"+dc.Figures.Date, ".pdf")
			err = d.savePDF(dc, path)
		}
		fyne.Do(func() {
			if err != nil {
				d.env.showError(err)
				return
			}
			d.save.SetText(T("Saved to {{.Path}}", map[string]any{"Path": path}))
		})
	})
}

// savePDF writes the day's page in the window's language.
func (d *closeDayDialog) savePDF(dc app.DayClose, path string) error {
	var buf bytes.Buffer
	if err := printing.WriteDayReportPDF(&buf, printing.DayCloseReport(dc, d.env.now().Location(), dayWords)); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// dayWords gives the words of the day's page and figures. Each English
// text is written out here so the translation check finds it.
func dayWords(key, english string) string {
	switch key {
	case "title":
		return T("Day closed")
	case "station":
		return T("Station")
	case "closed":
		return T("Closed at")
	case "by":
		return T("by")
	case "expired_now":
		return T("Unused labels expired by this close")
	case "by_hour":
		return T("Redeemed by hour")
	case "changes":
		return T("Changed since the close at %s")
	case "no_changes":
		return T("nothing changed")
	case "change":
		return T("%s: %d, now %d")
	case "issued":
		return T("Issued")
	case "printed":
		return T("Printed (labels)")
	case "print_jobs":
		return T("Print jobs")
	case "reprints":
		return T("of which reprints")
	case "scans":
		return T("Scans")
	case "redeemed":
		return T("Redeemed")
	case "redeemed_by":
		return T("by %s")
	case "redeemed_hour":
		return T("from %s")
	case "refused":
		return T("Refused")
	case "just_scanned":
		return T("Scanned twice in a row (not refused)")
	case "undone":
		return T("Undone")
	case "disabled":
		return T("Disabled")
	case "expired":
		return T("Expired (labels of the day)")
	case "unused":
		return T("Still unused (labels of the day)")
	case "conflicts":
		return T("Conflicts")
	}
	if o, ok := strings.CutPrefix(key, "refused:"); ok {
		return refusalName(app.Outcome(o))
	}
	return english
}

// refusalName names a reason for refusing a scan on the day's page, in
// sentence case among the other figures (the Scan screen's titles are in
// capitals to be read across the counter).
func refusalName(o app.Outcome) string {
	switch o {
	case app.OutcomeAlreadyUsed:
		return T("Already used")
	case app.OutcomeExpired:
		return T("Expired")
	case app.OutcomeDisabled:
		return T("Disabled")
	case app.OutcomeUnknown:
		return T("Unknown code")
	case app.OutcomeBadSignature:
		return T("Forged or altered")
	case app.OutcomeMalformed:
		return T("Not a qrdesk code")
	case app.OutcomeServerRefused:
		return T("Refused by the server")
	case app.OutcomeBadge:
		return T("Operator badge")
	}
	return app.OutcomeLabel(o)
}
