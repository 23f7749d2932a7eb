package ui

import (
	"context"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	"qrdesk/printing"
)

// A batch printed before is printed again in part: after a jam the clerk
// reprints the one sheet that jammed (or the labels from one serial to
// another), not the whole batch with every other label a live duplicate.
// The form asks which; the preview shows the chosen labels as they will
// print; the job is logged as a reprint of those labels only.

// reprintForm asks which labels of the selected batch to print again.
type reprintForm struct {
	intro        *widget.Label
	choice       *widget.RadioGroup
	sheetItem    *widget.FormItem // its hint: what the first and last sheets hold
	serialItem   *widget.FormItem // its hint: the batch's serials
	sheet        *escEntry
	from, to     *escEntry
	message      *widget.Label
	ok, cancel   *keyButton
	dialog       dialog.Dialog
	whole, one   string // the choices' texts
	serialChoice string
}

// askReprint opens the form; next runs with the part chosen (nil: the
// whole batch) once the labels are found.
func (s *issueScreen) askReprint(o printing.Options, next func(part *app.BatchPart)) {
	b := *s.selected
	if at, ok := s.printedFrom[b.ID]; ok && at.template == o.Template.Name {
		o.Start = at.start // its sheets are as they printed, wherever Start has moved on to
	}
	per := o.Template.PerPage()
	sheets := app.Sheets(per, o.Start, b.Count)
	f := &reprintForm{sheet: newEscEntry(), from: newEscEntry(), to: newEscEntry(), message: widget.NewLabel("")}
	f.whole = T("The whole batch ({{.Sheets}})", map[string]any{"Sheets": sheetCount(sheets)})
	f.one = T("One sheet")
	f.serialChoice = T("Labels from one serial to another")
	f.choice = widget.NewRadioGroup([]string{f.one, f.serialChoice, f.whole}, nil)
	f.choice.Required = true
	// The hints say what a sheet holds ("Sheet 3 = A0033–A0053 (21
	// labels)") once it is read; the fields stay empty until typed in (a
	// placeholder such as "A0041" was read as a value).
	f.sheet.SetPlaceHolder(T("Number, 1 to {{.Sheets}}", map[string]any{"Sheets": sheets}))
	f.from.SetPlaceHolder(T("First serial"))
	f.to.SetPlaceHolder(T("Last serial"))
	f.message.Wrapping = fyne.TextWrapWord

	part := func() *app.BatchPart {
		switch f.choice.Selected {
		case f.one:
			n, err := strconv.Atoi(strings.TrimSpace(f.sheet.Text))
			if err != nil {
				n = -1 // said by the service: sheets count from 1
			}
			return &app.BatchPart{Sheet: n, PerSheet: per, Skip: o.Start}
		case f.serialChoice:
			return &app.BatchPart{From: strings.TrimSpace(f.from.Text), To: strings.TrimSpace(f.to.Text)}
		}
		return nil
	}
	// What is chosen shows in the preview at once.
	show := func() {
		p := part()
		if p != nil && p.Sheet < 1 && p.From == "" {
			p = nil // nothing typed yet: the preview stays on the batch
		}
		s.part = p
		s.renderPreview()
	}
	f.choice.OnChanged = func(string) { show() }
	f.sheet.OnChanged = func(string) { f.choice.SetSelected(f.one); show() }
	f.from.OnChanged = func(string) { f.choice.SetSelected(f.serialChoice); show() }
	f.to.OnChanged = f.from.OnChanged

	close := func() {
		s.env.dialogKeys = nil
		f.dialog.Hide()
	}
	cancel := func() {
		close()
		s.part = nil
		s.renderPreview()
		s.sayPrinted(T("Nothing printed"))
	}
	submit := func() {
		p := part()
		if p != nil && p.Sheet < 1 && p.From == "" {
			if f.choice.Selected == f.one {
				f.message.SetText(T("Type the number of the sheet to print again: 1 to {{.Sheets}}", map[string]any{"Sheets": sheets}))
			} else {
				f.message.SetText(T("Type the first serial to print again, as on the label (A0041)"))
			}
			return
		}
		f.ok.Disable()
		s.env.background(func() {
			var err error
			if p != nil {
				_, _, err = s.env.svc.SelectForPrint(context.Background(), app.PrintSelection{BatchID: b.ID, Part: p})
			}
			onUI(func() {
				f.ok.Enable()
				if err != nil {
					f.message.SetText(app.ErrorMessage(err))
					return
				}
				close()
				s.part = p
				next(p)
			})
		})
	}
	for _, e := range []*escEntry{f.sheet, f.from, f.to} {
		e.onEsc = cancel
		e.OnSubmitted = func(string) { submit() }
	}
	guardBadges(s.env, &f.sheet.Entry, &f.from.Entry, &f.to.Entry)
	f.ok = newKeyButton(T("Print again"), submit)
	f.ok.Importance = widget.HighImportance
	f.cancel = newKeyButton(T("Cancel"), cancel)
	f.intro = widget.NewLabel(T("{{.Printed}} of these labels were printed before. Which of them should be printed again? The reprint is logged.",
		map[string]any{"Printed": b.Printed}))
	if b.Printed == 1 {
		f.intro.SetText(T("1 of these labels was printed before. Which of them should be printed again? The reprint is logged."))
	}
	f.intro.Wrapping = fyne.TextWrapWord
	f.sheetItem, f.serialItem = widget.NewFormItem(T("Sheet"), f.sheet), widget.NewFormItem(T("Serials from"), f.from)
	f.sheetItem.HintText = T("Counted from the batch's first sheet") // until what the sheets hold is read
	f.serialItem.HintText = T("As printed on the labels")
	form := widget.NewForm(f.sheetItem, f.serialItem, widget.NewFormItem(T("to"), f.to))
	s.env.background(func() { f.hint(s.env.svc, form, b.ID, per, o.Start, sheets) })
	content := container.NewVBox(f.intro, f.choice, form, f.message, container.NewHBox(f.cancel, f.ok))
	f.dialog = dialog.NewCustomWithoutButtons(T("Print again"), content, s.env.win)
	f.dialog.Resize(fyne.NewSize(480, 0))
	// Enter and Esc with no field focused (after a click on a choice).
	s.env.dialogKeys = func(k *fyne.KeyEvent) {
		switch k.Name {
		case fyne.KeyReturn, fyne.KeyEnter:
			submit()
		case fyne.KeyEscape:
			cancel()
		}
	}
	s.reprint = f
	f.choice.SetSelected(f.one)
	f.dialog.Show()
	s.env.win.Canvas().Focus(f.sheet)
}

// hint reads, off the UI goroutine, what the batch's first and last
// sheets hold and says it under the fields: "Sheet 1 = A0001–A0021 (21
// labels) … Sheet 3 = A0043–A0050 (8 labels)", and the batch's serials.
func (f *reprintForm) hint(svc *app.Service, form *widget.Form, batch int64, per, skip, sheets int) {
	span := func(sheet int) (string, string, int, error) {
		recs, _, err := svc.SelectForPrint(context.Background(), app.PrintSelection{BatchID: batch, Part: &app.BatchPart{Sheet: sheet, PerSheet: per, Skip: skip}})
		if err != nil || len(recs) == 0 {
			return "", "", 0, err
		}
		return printedName(recs[0]), printedName(recs[len(recs)-1]), len(recs), nil
	}
	first, firstTo, n, err := span(1)
	if err != nil || n == 0 {
		return
	}
	text := sheetSpanText(1, first, firstTo, n)
	last := firstTo
	if sheets > 1 {
		from, to, m, err := span(sheets)
		if err != nil || m == 0 {
			return
		}
		text += " … " + sheetSpanText(sheets, from, to, m)
		last = to
	}
	serials := T("As on the labels: {{.First}} to {{.Last}}", map[string]any{"First": first, "Last": last})
	onUI(func() {
		f.sheetItem.HintText, f.serialItem.HintText = text, serials
		form.Refresh()
	})
}

// sheetSpanText is "Sheet 3 = A0033–A0053 (21 labels)".
func sheetSpanText(sheet int, first, last string, n int) string {
	return T("Sheet {{.Sheet}} = {{.First}}–{{.Last}} ({{.Labels}})", map[string]any{"Sheet": sheet, "First": first, "Last": last, "Labels": labelCount(n)})
}

// sheetCount is "1 sheet" or "3 sheets".
func sheetCount(n int) string {
	if n == 1 {
		return T("1 sheet")
	}
	return T("{{.Count}} sheets", map[string]any{"Count": n})
}

// labelCount is "1 label" or "21 labels".
func labelCount(n int) string {
	if n == 1 {
		return T("1 label")
	}
	return T("{{.Count}} labels", map[string]any{"Count": n})
}

// codeCount is "1 code" or "30 codes".
func codeCount(n int) string {
	if n == 1 {
		return T("1 code")
	}
	return T("{{.Count}} codes", map[string]any{"Count": n})
}

// partName names a part for the clerk: "sheet 2" or "A0041–A0060".
func partName(p *app.BatchPart) string {
	if p.Sheet > 0 {
		return T("sheet {{.Sheet}}", map[string]any{"Sheet": p.Sheet})
	}
	return p.Describe()
}

// printedName is a label as printed: its serial (A0041), else its code.
func printedName(r app.CodeRecord) string {
	c, err := app.Parse(r.Code)
	if err != nil || !c.HasSerial() {
		return r.Code
	}
	return c.Station + c.SerialText()
}

// partText says what the preview of a part shows: "Print again: sheet 2
// of 3, labels A0018 to A0038 (21 labels) on 1 sheet from position 1".
func partText(p *app.BatchPart, recs []app.CodeRecord, o printing.Options, batchCount int) string {
	first, last := printedName(recs[0]), printedName(recs[len(recs)-1])
	per := o.Template.PerPage()
	what := partName(p)
	if p.Sheet > 0 {
		what = T("sheet {{.Sheet}} of {{.Sheets}}", map[string]any{"Sheet": p.Sheet, "Sheets": app.Sheets(per, p.Skip, batchCount)})
	}
	return T("Print again: {{.What}}, labels {{.First}} to {{.Last}} ({{.Labels}}) on {{.Sheets}} from position {{.From}}",
		map[string]any{"What": what, "First": first, "Last": last, "Labels": labelCount(len(recs)),
			"Sheets": sheetCount(app.Sheets(per, o.Start, len(recs))), "From": o.Start + 1})
}
