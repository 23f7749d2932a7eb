package ui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	"qrdesk/printing"
)

// issueScreen is the clerk's desk: issue a batch, preview it, print it.
type issueScreen struct {
	env                          *env
	count, date, typ, ref, expir *widget.Entry
	issueBtn                     *widget.Button
	progress                     *widget.ProgressBar
	status                       *widget.Label

	template  *widget.Select
	start     *widget.Entry
	printer   *widget.Select
	printBtn  *widget.Button
	saveBtn   *widget.Button
	preview   *canvas.Image
	batchList *widget.List
	batches   []app.Batch
	selected  *app.Batch
	content   fyne.CanvasObject
}

func newIssueScreen(e *env) *issueScreen {
	s := &issueScreen{env: e}
	s.count = widget.NewEntry()
	s.count.Validator = func(v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > app.MaxBatch {
			return fmt.Errorf("%s", T("Enter a number from 1 to 1,000,000"))
		}
		return nil
	}
	s.date = widget.NewEntry()
	s.date.SetPlaceHolder("YYYY-MM-DD")
	s.typ, s.ref, s.expir = widget.NewEntry(), widget.NewEntry(), widget.NewEntry()
	s.expir.SetPlaceHolder(T("never, eod, 72h, 7d"))
	s.issueBtn = widget.NewButton(T("Issue"), s.issue)
	s.issueBtn.Importance = widget.HighImportance
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
	s.template = widget.NewSelect(names, func(string) { s.renderPreview() })
	s.start = widget.NewEntry()
	s.start.SetText("0")
	s.start.OnChanged = func(string) { s.renderPreview() }
	s.printer = widget.NewSelect(nil, nil)
	s.printer.PlaceHolder = T("(no printer: save a PDF)")
	s.printBtn = widget.NewButton(T("Print"), func() { s.confirmThen(s.printToPrinter) })
	s.saveBtn = widget.NewButton(T("Save PDF…"), func() { s.confirmThen(s.askSavePath) })
	s.preview = canvas.NewImageFromImage(nil)
	s.preview.FillMode = canvas.ImageFillContain
	s.preview.SetMinSize(fyne.NewSize(300, 400))
	s.batchList = widget.NewList(func() int { return len(s.batches) },
		func() fyne.CanvasObject { return widget.NewLabel("batch 0000: 100000 codes, printed 100000") },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			b := s.batches[i]
			o.(*widget.Label).SetText(T("Batch {{.ID}}: {{.Count}} codes for {{.Date}}, printed {{.Printed}}",
				map[string]any{"ID": b.ID, "Count": b.Count, "Date": b.LabelDate, "Printed": b.Printed}))
		})
	s.batchList.OnSelected = func(i widget.ListItemID) {
		b := s.batches[i]
		s.selected = &b
		s.renderPreview()
	}

	form := widget.NewForm(
		widget.NewFormItem(T("Count"), s.count), widget.NewFormItem(T("Label date"), s.date),
		widget.NewFormItem(T("Type"), s.typ), widget.NewFormItem(T("Ref"), s.ref), widget.NewFormItem(T("Expiry"), s.expir))
	left := container.NewVBox(widget.NewLabelWithStyle(T("Issue a batch"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		form, s.issueBtn, s.progress, s.status,
		widget.NewLabelWithStyle(T("Today's batches"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	printForm := widget.NewForm(widget.NewFormItem(T("Template"), s.template), widget.NewFormItem(T("Start at position"), s.start),
		widget.NewFormItem(T("Printer"), s.printer))
	right := container.NewBorder(container.NewVBox(widget.NewLabelWithStyle(T("Print"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		printForm, container.NewGridWithColumns(2, s.printBtn, s.saveBtn)), nil, nil, nil, s.preview)
	s.content = container.NewHSplit(container.NewBorder(left, nil, nil, nil, s.batchList), right)
	e.onSaved = append(e.onSaved, s.applySettings)
	return s
}

func (s *issueScreen) applySettings(set app.Settings) {
	if s.count.Text == "" {
		s.count.SetText(strconv.Itoa(set.Daily))
	}
	s.expir.SetPlaceHolder(set.Expires.String())
	if s.template.Selected == "" {
		s.template.SetSelected(set.Template)
	}
	// lpstat may take a moment: list the printers off the UI goroutine.
	go func() {
		opts := []string{}
		if set.Printer != "" {
			opts = append(opts, set.Printer)
		}
		if names, err := printing.Printers(); err == nil {
			for _, n := range names {
				if n != set.Printer {
					opts = append(opts, n)
				}
			}
		}
		fyne.Do(func() {
			s.printer.Options = opts
			if len(opts) > 0 && s.printer.Selected == "" {
				s.printer.SetSelected(opts[0])
			}
			s.printer.Refresh()
		})
	}()
}

// refresh reloads today's batches.
func (s *issueScreen) refresh() {
	go func() {
		day := app.Day(s.env.now())
		batches, err := s.env.svc.Store.Batches(context.Background(), day.Unix(), day.AddDate(0, 0, 1).Unix())
		fyne.Do(func() {
			if err != nil {
				s.status.SetText(app.ErrorMessage(err))
				return
			}
			s.batches = batches
			s.batchList.Refresh()
			if s.selected == nil && len(batches) > 0 {
				s.batchList.Select(0) // the newest batch, ready to print
			}
		})
	}()
}

// issue creates the batch off the UI goroutine with a progress bar.
func (s *issueScreen) issue() {
	if !s.env.whoIsIn(T("Sign in to issue codes: the batch names who issued it"), s.issue) {
		return
	}
	if err := s.count.Validate(); err != nil {
		s.status.SetText(err.Error())
		return
	}
	n, _ := strconv.Atoi(strings.TrimSpace(s.count.Text))
	req := app.IssueRequest{Count: n, Date: strings.TrimSpace(s.date.Text), Type: strings.TrimSpace(s.typ.Text),
		Ref: strings.TrimSpace(s.ref.Text), Expires: strings.TrimSpace(s.expir.Text), Operator: s.env.operator()}
	req.Progress = func(done, total int) {
		fyne.Do(func() { s.progress.SetValue(float64(done) / float64(total)) })
	}
	s.issueBtn.Disable()
	s.progress.SetValue(0)
	s.progress.Show()
	s.status.SetText(T("Issuing…"))
	go func() {
		b, _, err := s.env.svc.Issue(context.Background(), req)
		fyne.Do(func() {
			s.issueBtn.Enable()
			s.progress.Hide()
			if err != nil {
				s.status.SetText(app.ErrorMessage(err))
				return
			}
			s.selected = &b
			s.status.SetText(T("Batch {{.ID}}: {{.Count}} codes for {{.Date}}. Choose a template and print.",
				map[string]any{"ID": b.ID, "Count": b.Count, "Date": b.LabelDate}))
			s.refresh()
			s.renderPreview()
		})
	}()
}

// printOptions reads the print form.
func (s *issueScreen) printOptions() (printing.Options, error) {
	t, err := printing.FindTemplate(s.env.templateDir, s.template.Selected)
	if err != nil {
		return printing.Options{}, err
	}
	start, err := strconv.Atoi(strings.TrimSpace(s.start.Text))
	if err != nil {
		return printing.Options{}, fmt.Errorf("%s", T("Start position must be a number"))
	}
	set := s.env.current()
	return printing.Options{Template: t, Start: start, OffsetX: set.OffsetX, OffsetY: set.OffsetY, EC: set.QREC, Created: s.env.now()}, nil
}

func (s *issueScreen) labels(ctx context.Context) ([]app.CodeRecord, []printing.Label, error) {
	if s.selected == nil {
		return nil, nil, fmt.Errorf("%s", T("Issue a batch or pick one from today's batches first"))
	}
	recs, err := s.env.svc.Store.BatchCodes(ctx, s.selected.ID)
	if err != nil {
		return nil, nil, err
	}
	title := s.env.current().LabelTitle
	labels := make([]printing.Label, len(recs))
	for i, r := range recs {
		c, err := app.Parse(r.Code)
		if err != nil {
			return nil, nil, err
		}
		labels[i] = printing.Label{Code: c, Title: title}
	}
	return recs, labels, nil
}

// renderPreview draws the first sheet of the selected batch.
func (s *issueScreen) renderPreview() {
	if s.selected == nil || s.template.Selected == "" {
		return
	}
	o, err := s.printOptions()
	if err != nil {
		s.status.SetText(err.Error())
		return
	}
	go func() {
		_, labels, err := s.labels(context.Background())
		if err == nil {
			n := min(len(labels), o.Template.PerPage())
			img, perr := printing.Preview(labels[:n], o, 3)
			fyne.Do(func() {
				if perr != nil {
					s.status.SetText(perr.Error())
					return
				}
				s.preview.Image = img
				s.preview.Refresh()
			})
		}
	}()
}

// confirmThen asks before a reprint (it is logged), then runs next.
func (s *issueScreen) confirmThen(next func(reprint bool)) {
	if s.selected == nil {
		s.status.SetText(T("Issue a batch or pick one from today's batches first"))
		return
	}
	if s.selected.Printed == 0 {
		next(false)
		return
	}
	dialog.ShowConfirm(T("Reprint?"), T("{{.Printed}} of these labels were printed before. Print them again? The reprint is logged.",
		map[string]any{"Printed": s.selected.Printed}), func(ok bool) {
		if ok {
			if _, approved := s.env.supervisor(T("Reprint labels"), func() { next(true) }); approved {
				next(true)
			}
		}
	}, s.env.win)
}

func (s *issueScreen) askSavePath(reprint bool) {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		path := w.URI().Path()
		w.Close()
		s.print(reprint, path, "")
	}, s.env.win)
	d.SetFileName(fmt.Sprintf("qrdesk-batch-%d.pdf", s.selected.ID))
	d.SetFilter(storage.NewExtensionFileFilter([]string{".pdf"}))
	d.Show()
}

func (s *issueScreen) printToPrinter(reprint bool) {
	if s.printer.Selected == "" {
		s.status.SetText(T("No printer is set up: use Save PDF and print the file at 100 % scale"))
		return
	}
	s.print(reprint, "", s.printer.Selected)
}

// print records and runs a print job off the UI goroutine.
func (s *issueScreen) print(reprint bool, path, printer string) {
	if !s.env.whoIsIn(T("Sign in to print: the print job names who printed it"), func() { s.print(reprint, path, printer) }) {
		return
	}
	o, err := s.printOptions()
	if err != nil {
		s.status.SetText(err.Error())
		return
	}
	s.status.SetText(T("Printing…"))
	go func() {
		ctx := context.Background()
		err := s.runPrint(ctx, o, reprint, path, printer)
		var updated app.Batch
		if err == nil {
			updated, err = s.env.svc.Store.Batch(ctx, s.selected.ID)
		}
		fyne.Do(func() {
			if err != nil {
				s.status.SetText(app.ErrorMessage(err))
				return
			}
			s.selected = &updated
			s.status.SetText(T("Printed batch {{.ID}}", map[string]any{"ID": s.selected.ID}))
			s.refresh()
		})
	}()
}

// runPrint is the print job itself; a path saves a PDF, a printer sends it.
func (s *issueScreen) runPrint(ctx context.Context, o printing.Options, reprint bool, path, printer string) error {
	recs, labels, err := s.labels(ctx)
	if err != nil {
		return err
	}
	job := app.PrintJob{Operator: s.env.operator(), Template: o.Template.Name, Format: "pdf", Printer: printer, Output: path, Reprint: reprint}
	prepare := func([]app.CodeRecord) (func() error, error) {
		var buf bytes.Buffer
		if err := printing.WritePDF(&buf, labels, o); err != nil {
			return nil, &app.Error{Kind: app.KindInvalid, Message: err.Error()}
		}
		return func() error {
			if path != "" {
				return os.WriteFile(path, buf.Bytes(), 0o644)
			}
			return printing.SendToCUPS(printer, buf.Bytes(), false)
		}, nil
	}
	_, err = s.env.svc.Print(ctx, recs, job, nil, prepare)
	return err
}
