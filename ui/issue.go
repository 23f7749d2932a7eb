package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	"qrdesk/printing"
)

// issueScreen is the clerk's desk: issue a batch, preview it, print it.
type issueScreen struct {
	env *env
	// printedFrom is where each batch printed in this window started, by
	// template: Start moves on to the sheet's next free position after a
	// print (sheetUsed), and a sheet printed again is that print's sheet.
	printedFrom           map[int64]sheetStart
	count, date, typ, ref *widget.Entry
	expir                 *widget.SelectEntry // chosen from the list, or typed
	issueBtn              *keyButton
	importBtn             *keyButton // Import orders… (issue_orders.go)
	progress              *widget.ProgressBar
	status                *widget.Label

	template    *widget.Select
	start       *widget.Entry
	printer     *widget.Select
	printBtn    *keyButton
	saveBtn     *keyButton
	printing    *widget.ProgressBarInfinite
	printStatus *widget.Label   // what Print and Save PDF did, under their buttons
	printTop    *fyne.Container // the print column above the preview
	preview     *canvas.Image
	sheets      *widget.Label // "Sheet 1 of N", or why there is no preview
	batchList   *widget.List
	batches     []app.Batch
	selected    *app.Batch     // the batch Print and Save PDF take: always the highlighted row (follow)
	following   bool           // follow is moving the highlight: not the clerk's choice
	part        *app.BatchPart // the part of the batch to print again (issue_reprint.go); nil: all of it
	reprint     *reprintForm   // the reprint question while it is up
	issuing     bool           // a batch is being issued: the button stays locked
	shownDaily  string         // the daily quantity Count was filled with, until the clerk types another
	cache       labelCache
	previewLoad latest
	content     fyne.CanvasObject
}

func newIssueScreen(e *env) *issueScreen {
	s := &issueScreen{env: e}
	s.count = widget.NewEntry()
	s.count.OnSubmitted = func(string) { s.issue() }
	s.count.Validator = func(v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > app.MaxBatch {
			return fmt.Errorf("%s", T("Enter a number from 1 to 1,000,000"))
		}
		return nil
	}
	s.date = widget.NewEntry()
	s.date.SetPlaceHolder("YYYY-MM-DD")
	s.typ, s.ref = widget.NewEntry(), widget.NewEntry()
	s.expir = widget.NewSelectEntry(expiryChoiceTexts())
	// Enter issues from every field of the form, as it does from Count: a
	// clerk who types the ref last presses Enter there.
	for _, e := range []*widget.Entry{s.date, s.typ, s.ref, &s.expir.Entry} {
		e.OnSubmitted = func(string) { s.issue() }
	}
	s.issueBtn = newKeyButton(T("Issue"), s.issue)
	s.issueBtn.Importance = widget.HighImportance
	s.importBtn = newKeyButton(T("Import orders…"), s.chooseOrderFile)
	s.progress = widget.NewProgressBar()
	s.progress.Hide()
	s.status = widget.NewLabel("")
	s.status.Wrapping = fyne.TextWrapWord

	names := []string{}
	if all, err := printing.Templates(e.templateDir); err == nil {
		for _, t := range all {
			names = append(names, t.Name)
		}
	}
	s.template = widget.NewSelect(names, func(name string) {
		s.startOnSheet(name)
		s.renderPreview()
	})
	s.start = widget.NewEntry()
	s.start.SetText("1")
	s.start.OnChanged = func(string) { s.renderPreview() }
	s.printer = widget.NewSelect(nil, nil)
	s.printer.PlaceHolder = T("(no printer: save a PDF)")
	s.printBtn = newKeyButton(T("Print"), func() { s.confirmThen(s.printToPrinter) })
	s.saveBtn = newKeyButton(T("Save PDF"), func() { s.confirmThen(s.savePDF) })
	// What Print and Save PDF did is said under their buttons, not under
	// Issue across the window.
	s.printStatus = widget.NewLabel("")
	s.printStatus.Wrapping = fyne.TextWrapWord
	s.printStatus.Hide()
	s.printing = widget.NewProgressBarInfinite()
	s.printing.Stop()
	s.printing.Hide()
	s.preview = canvas.NewImageFromImage(nil)
	s.preview.FillMode = canvas.ImageFillContain
	s.preview.SetMinSize(fyne.NewSize(200, 200)) // small enough for a print message under the buttons at 1024 × 600
	s.sheets = widget.NewLabel("")
	s.sheets.Wrapping = fyne.TextWrapWord
	s.batchList = widget.NewList(func() int { return len(s.batches) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("batch 0000: 100000 codes, printed 100000")
			l.Truncation = fyne.TextTruncateEllipsis // a long ref never widens the column
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i >= len(s.batches) { // a reload shortened the list between its length and this row
				return
			}
			o.(*widget.Label).SetText(batchRow(s.batches[i]))
		})
	s.batchList.OnSelected = func(i widget.ListItemID) {
		if i >= len(s.batches) || s.following {
			return
		}
		b := s.batches[i]
		s.selected = &b
		s.part = nil
		s.sayPrinted("") // it spoke of another batch
		s.renderPreview()
	}

	// Count and Label date share a row, and the status line is there only
	// when it says something: at 1024 × 600 the five rows of the form and
	// an empty status left Today's batches one and a half rows.
	items := s.issueFormItems()
	form := container.NewVBox(container.NewBorder(nil, nil, widget.NewForm(items[0]), nil, widget.NewForm(items[1])),
		widget.NewForm(items[2:]...))
	s.status.Hide()
	left := container.NewVBox(widget.NewLabelWithStyle(T("Issue a batch"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		form, container.NewGridWithColumns(2, s.issueBtn, s.importBtn), s.progress, s.status,
		widget.NewLabelWithStyle(T("Today's batches"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	printForm := widget.NewForm(widget.NewFormItem(T("Template"), s.template), widget.NewFormItem(T("Start at position"), s.start),
		widget.NewFormItem(T("Printer"), s.printer))
	s.printTop = container.NewVBox(widget.NewLabelWithStyle(T("Print"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		printForm, container.NewGridWithColumns(2, s.printBtn, s.saveBtn), s.printing, s.printStatus, s.sheets)
	right := container.NewBorder(s.printTop, nil, nil, nil, s.preview)
	s.content = container.NewHSplit(container.NewBorder(left, nil, nil, nil, s.batchList), right)
	e.onSaved = append(e.onSaved, s.applySettings)
	return s
}

func (s *issueScreen) applySettings(set app.Settings) {
	// Count follows the daily quantity (the first-run set-up changes it
	// after the screen was built) until the clerk types a count of their own.
	if daily := strconv.Itoa(set.Daily); s.count.Text == "" || s.count.Text == s.shownDaily {
		s.count.SetText(daily)
		s.shownDaily = daily
	}
	s.expir.SetPlaceHolder(expiryChoiceText(set.Expires))
	if s.template.Selected == "" {
		s.template.SetSelected(set.Template)
	}
	// lpstat may take a moment: list the printers off the UI goroutine.
	// The printer setting comes first; without one, the first printer the
	// computer lists is chosen, as the Settings screen says (settings.go).
	s.env.background(func() {
		opts := []string{}
		if set.Printer != "" {
			opts = append(opts, set.Printer)
		}
		if names, err := listPrinters(); err == nil {
			for _, n := range names {
				if n != set.Printer {
					opts = append(opts, n)
				}
			}
		}
		onUI(func() {
			s.printer.Options = opts
			if len(opts) > 0 && s.printer.Selected == "" {
				s.printer.SetSelected(opts[0])
			}
			s.printer.Refresh()
		})
	})
}

// refresh reloads today's batches.
func (s *issueScreen) refresh() {
	s.env.background(func() {
		batches, err := s.env.svc.BatchesOn(context.Background(), "")
		onUI(func() {
			if err != nil {
				s.say(app.ErrorMessage(err))
				return
			}
			s.follow(batches)
		})
	})
}

// follow shows the batches as the database has them now (a batch issued
// at the command line or in another window included) and keeps the
// highlight on the batch Print takes, found by its number, not by its row:
// a new row above it would otherwise highlight one batch while Print
// takes another. A selected batch no longer in the list gives way to the
// newest one.
func (s *issueScreen) follow(batches []app.Batch) {
	s.batches = batches
	s.batchList.Refresh()
	if s.selected != nil {
		for i, b := range batches {
			if b.ID == s.selected.ID {
				s.selected = &b // its printed count as stored now
				s.following = true
				s.batchList.Select(i)
				s.following = false
				return
			}
		}
		s.selected = nil
		s.batchList.UnselectAll()
	}
	if len(batches) > 0 {
		s.batchList.Select(0) // the newest batch, ready to print
	}
}

// issue checks the form, asks before going over the daily quantity and
// issues the batch. The button is locked from the first press until the
// batch is done or the question is answered: a double click issues once.
// Where the desk has operators, a supervisor approves a batch that goes
// over the daily quantity, and every batch when pickers may not issue
// (the pickers_issue setting).
func (s *issueScreen) issue() {
	if s.issuing {
		return
	}
	if !s.env.whoIsIn(T("Sign in to issue codes: the batch names who issued it"), s.issue) {
		return
	}
	if err := s.validateIssueForm(); err != nil {
		s.say(err.Error())
		return
	}
	set := s.env.current()
	approved := false // by a supervisor, for this batch
	if !set.PickersIssue {
		if _, ok := s.env.supervisor(T("Issue labels: pickers may not issue at this desk"), s.issue); !ok {
			return
		}
		approved = true
	}
	n, _ := strconv.Atoi(strings.TrimSpace(s.count.Text))
	s.lock(true)
	daily := set.Daily
	s.env.background(func() {
		already, err := s.issuedToday(context.Background())
		onUI(func() {
			switch {
			case err != nil:
				s.lock(false)
				s.say(app.ErrorMessage(err))
			case daily > 0 && already+n > daily:
				s.env.confirm(T("More than the daily quantity?"),
					T("Issued today: {{.Already}}; the daily quantity is {{.Daily}}. Issue {{.Count}} more?",
						map[string]any{"Already": codeCount(already), "Daily": daily, "Count": n}), T("Issue"), func(ok bool) {
						if !ok {
							s.lock(false)
							s.say(T("Nothing issued"))
							return
						}
						if approved {
							s.issueNow(n)
							return
						}
						if _, ok := s.env.supervisorOr(T("Issue more than the daily quantity"), func() { s.issueNow(n) }, func() {
							s.lock(false)
							s.say(T("Nothing issued"))
						}); ok {
							s.issueNow(n)
						}
					})
			default:
				s.issueNow(n)
			}
		})
	})
}

// lock disables the Issue button while a batch is on its way.
func (s *issueScreen) lock(on bool) {
	s.issuing = on
	if on {
		s.issueBtn.Disable()
		s.importBtn.Disable()
	} else {
		s.issueBtn.Enable()
		s.importBtn.Enable()
	}
}

// issuedToday counts the codes of the batches issued today at this desk.
func (s *issueScreen) issuedToday(ctx context.Context) (int, error) {
	batches, err := s.env.svc.BatchesOn(ctx, "")
	n := 0
	for _, b := range batches {
		n += b.Count
	}
	return n, err
}

// issueNow creates the batch off the UI goroutine with a progress bar.
func (s *issueScreen) issueNow(n int) { s.issueAs(n, "") }

// issueRestored asks, at a desk restored from a backup that has not synced
// since, whether to issue anyway and then for a supervisor's approval; the
// batch then goes with the supervisor's name (app.ErrRestoredNotSynced).
func (s *issueScreen) issueRestored(n int, why string) {
	s.lock(true)
	s.env.confirm(T("Issue before the sync?"), why, T("Issue anyway"), func(ok bool) {
		if !ok {
			s.lock(false)
			s.say(T("Nothing issued: sync first"))
			return
		}
		s.approveRestored(n)
	})
}

func (s *issueScreen) approveRestored(n int) {
	name, ok := s.env.supervisorOr(T("Issue labels before the sync: this desk was restored from a backup"), func() { s.approveRestored(n) }, func() {
		s.lock(false)
		s.say(T("Nothing issued: sync first"))
	})
	if ok {
		s.issueAs(n, name)
	}
}

// issueAs is issueNow with the supervisor who allows a restored desk to
// issue before it syncs ("": none).
func (s *issueScreen) issueAs(n int, supervisor string) {
	req := app.IssueRequest{Count: n, Date: strings.TrimSpace(s.date.Text), Type: strings.TrimSpace(s.typ.Text),
		Ref: strings.TrimSpace(s.ref.Text), Expires: expiryValue(s.expir.Text), Operator: s.env.operator(), Supervisor: supervisor,
		DropCodes: true} // the screen reads the batch back to print it
	req.Progress = func(done, total int) {
		onUI(func() { s.progress.SetValue(float64(done) / float64(total)) })
	}
	s.progress.SetValue(0)
	s.progress.Show()
	s.say(T("Issuing…"))
	s.env.background(func() {
		b, _, err := s.env.svc.Issue(context.Background(), req)
		onUI(func() {
			s.lock(false)
			s.progress.Hide()
			if err != nil && errors.Is(err, app.ErrRestoredNotSynced) && supervisor == "" {
				s.say(app.ErrorMessage(err))
				s.issueRestored(n, app.ErrorMessage(err))
				return
			}
			if err != nil {
				s.say(app.ErrorMessage(err))
				return
			}
			s.selected = &b
			s.say(T("Batch {{.ID}}: {{.Codes}} for {{.Date}}. Choose a template and print.",
				map[string]any{"ID": b.ID, "Codes": codeCount(b.Count), "Date": b.LabelDate}))
			s.refresh()
			s.renderPreview()
		})
	})
}

// printOptions reads the print form.
func (s *issueScreen) printOptions() (printing.Options, error) {
	t, err := printing.FindTemplate(s.env.templateDir, s.template.Selected)
	if err != nil {
		return printing.Options{}, err
	}
	start, err := startPosition(s.start.Text, t)
	if err != nil {
		return printing.Options{}, err
	}
	if s.part != nil {
		if at := s.part.StartPosition(); at >= 0 {
			start = at // a sheet printed again goes where it was
		}
	}
	set := s.env.current()
	return printing.Options{Template: t, Start: start, OffsetX: set.OffsetX, OffsetY: set.OffsetY, EC: set.QREC, Created: s.env.now()}, nil
}

// toLabels turns stored codes into labels (the print pipeline's).
func toLabels(recs []app.CodeRecord, title string) ([]printing.Label, error) {
	return printing.LabelsFor(recs, title)
}

// batchRow is a batch's row in Today's batches: its number, size, date and
// printed count, then its type and ref where set, so the clerk finds an
// imported order's batch by its order number.
func batchRow(b app.Batch) string {
	row := T("Batch {{.ID}}: {{.Codes}} for {{.Date}}, printed {{.Printed}}",
		map[string]any{"ID": b.ID, "Codes": codeCount(b.Count), "Date": b.LabelDate, "Printed": b.Printed})
	if b.Type != "" {
		row += " · " + b.Type
	}
	if b.Ref != "" {
		row += " · " + T("Ref {{.Ref}}", map[string]any{"Ref": b.Ref})
	}
	return row
}

// say puts text in the Issue status line, which is shown only while it
// says something (it would take a row from Today's batches).
func (s *issueScreen) say(text string) {
	s.status.SetText(text)
	if text == "" {
		s.status.Hide()
	} else {
		s.status.Show()
	}
}

// sheetStart is where a print of a batch began on a template's sheet
// (from 0).
type sheetStart struct {
	template string
	start    int
}

// prefNextPosition + a template's name is the window's note of where the
// next label of that template's partly used sheet goes.
const prefNextPosition = "next_position."

// startOnSheet sets Start at position to the next free position of the
// template's partly used sheet (1 for a fresh sheet or a roll).
func (s *issueScreen) startOnSheet(template string) {
	pos := 1
	if s.env.app != nil {
		pos = s.env.app.Preferences().IntWithFallback(prefNextPosition+template, 1)
	}
	if t, err := printing.FindTemplate(s.env.templateDir, template); err != nil || pos < 1 || pos > t.PerPage() {
		pos = 1
	}
	s.start.SetText(strconv.Itoa(pos))
}

// sheetUsed notes that n labels went on o's sheet from o.Start: the next
// print of that template starts where they ended, so a single replacement
// label no longer takes a fresh sheet.
// A sheet printed again goes where it was, on a sheet of its own: it
// moves nothing. The whole batch is noted as printed from o.Start.
func (s *issueScreen) sheetUsed(batch int64, part *app.BatchPart, o printing.Options, n int) {
	if part != nil && part.Sheet > 0 {
		return
	}
	if part == nil {
		if s.printedFrom == nil {
			s.printedFrom = map[int64]sheetStart{}
		}
		s.printedFrom[batch] = sheetStart{template: o.Template.Name, start: o.Start}
	}
	next := 1
	if per := o.Template.PerPage(); per > 1 {
		next = (o.Start+n)%per + 1
	}
	if s.env.app != nil {
		s.env.app.Preferences().SetInt(prefNextPosition+o.Template.Name, next)
	}
	if s.template.Selected == o.Template.Name {
		s.start.SetText(strconv.Itoa(next))
	}
}
