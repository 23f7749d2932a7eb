package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"qrdesk/app"
	"qrdesk/printing"
)

// saveFolder is where Save PDF and Export CSV put files: the clerk's
// Documents/qrdesk (documentsDir: on Windows the Documents known folder,
// wherever it was moved), shown in the message that names the file.
func (e *env) saveFolder() (string, error) {
	if e.saveDir != "" {
		return e.saveDir, nil
	}
	docs, err := documentsDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(docs, "qrdesk"), nil
}

// freePath is dir/name.ext, or name-2.ext, name-3.ext … if that exists:
// a saved PDF is never overwritten.
func freePath(dir, name, ext string) string {
	path := filepath.Join(dir, name+ext)
	for n := 2; ; n++ {
		if _, err := os.Stat(path); os.IsNotExist(err) {
			return path
		}
		path = filepath.Join(dir, fmt.Sprintf("%s-%d%s", name, n, ext))
	}
}

// busy locks the print buttons and shows a running bar while a print or
// save is on its way.
func (s *issueScreen) busy(on bool) {
	if on {
		s.printBtn.Disable()
		s.saveBtn.Disable()
		s.printing.Show()
		s.printing.Start()
		return
	}
	s.printing.Stop()
	s.printing.Hide()
	s.printBtn.Enable()
	s.saveBtn.Enable()
}

// savePDF writes the selected batch (or the part of it chosen to print
// again) as a PDF straight into the PDF folder and says where. There is no
// file dialog: a Space that pressed the button went on into the dialog's
// file name. A PDF of live labels is a print, by the same rule as 'qrdesk
// print -o file.pdf': a job is logged, and labels printed or saved before
// go again only as a reprint (asked, and approved by a supervisor, by
// confirmThen). A file can be printed any number of times; the log says
// who made it.
func (s *issueScreen) savePDF(reprint bool) {
	if !s.env.whoIsIn(T("Sign in to print: the print job names who printed it"), func() { s.savePDF(reprint) }) {
		return
	}
	o, err := s.printOptions()
	if err != nil {
		s.sayPrinted(app.ErrorMessage(err))
		return
	}
	b, part := *s.selected, s.part
	s.busy(true)
	s.sayPrinted(T("Saving…"))
	s.env.background(func() {
		ctx := context.Background()
		path, n, err := s.writePDF(ctx, o, b.ID, part, reprint)
		var updated app.Batch
		if err == nil {
			updated, err = s.env.svc.Batch(ctx, b.ID)
		}
		onUI(func() {
			s.busy(false)
			if s.part == part {
				s.part = nil // the next Print or Save asks again
			}
			if err != nil {
				s.sayPrinted(T("Not saved: {{.Error}}", map[string]any{"Error": app.ErrorMessage(err)}))
				return
			}
			s.selected = &updated
			s.sheetUsed(b.ID, part, o, n)
			text := T("Saved {{.Sheets}} ({{.Labels}}) to {{.Path}}: logged as a print job; print the file at 100 % scale.",
				map[string]any{"Sheets": sheetCount(printing.Pages(o.Template, o.Start, n)), "Labels": labelCount(n), "Path": path})
			if reprint {
				text = T("Saved {{.Sheets}} ({{.Labels}}) again to {{.Path}}: logged as a reprint of these labels; print the file at 100 % scale.",
					map[string]any{"Sheets": sheetCount(printing.Pages(o.Template, o.Start, n)), "Labels": labelCount(n), "Path": path})
			}
			s.sayPrinted(text)
			s.refresh()
			s.renderPreview()
		})
	})
}

// writePDF records a print job of a batch (or the part of it chosen to
// print again) and writes it to a new file in the PDF folder, through the
// print pipeline the command line's -o uses; it returns the file and how
// many labels it holds.
func (s *issueScreen) writePDF(ctx context.Context, o printing.Options, batchID int64, part *app.BatchPart, reprint bool) (string, int, error) {
	recs, _, err := s.env.svc.SelectForPrint(ctx, app.PrintSelection{BatchID: batchID, Part: part})
	if err != nil {
		return "", 0, err
	}
	dir, err := s.env.saveFolder()
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return "", 0, fmt.Errorf("cannot make the folder for PDFs: %w", err)
	}
	name := fmt.Sprintf("qrdesk-batch-%d", batchID)
	if part != nil {
		name += "-" + strings.NewReplacer(" ", "-", "–", "-").Replace(part.Describe())
	}
	path := freePath(dir, name, ".pdf")
	_, err = printing.Print(ctx, s.env.svc, printing.Job{Records: recs, Options: o, Title: s.env.current().LabelTitle,
		Format: printing.FormatPDF, To: printing.Destination{File: path}, Operator: s.env.operator(), Reprint: reprint})
	return path, len(recs), err
}

// confirmThen asks before a reprint (it is logged) which labels go again,
// one sheet, a range of serials or the whole batch (issue_reprint.go), then
// runs next.
// The batches are read again first, so the question goes by the database:
// a batch printed elsewhere meanwhile is a reprint, and a batch that is
// not the newest and was never printed asks before it goes (a clerk who
// meant today's new batch prints an older one by mistake otherwise).
func (s *issueScreen) confirmThen(next func(reprint bool)) {
	if s.selected == nil {
		s.sayPrinted(T("Issue a batch or pick one from today's batches first"))
		return
	}
	s.env.background(func() {
		batches, err := s.env.svc.BatchesOn(context.Background(), "")
		onUI(func() {
			if err != nil {
				s.sayPrinted(app.ErrorMessage(err))
				return
			}
			s.follow(batches)
			s.confirmSelected(next)
		})
	})
}

// confirmSelected is confirmThen once the list is as stored.
func (s *issueScreen) confirmSelected(next func(reprint bool)) {
	if s.selected == nil {
		s.sayPrinted(T("Issue a batch or pick one from today's batches first"))
		return
	}
	s.part = nil
	if s.selected.Printed == 0 {
		if newest := s.batches[0]; newest.ID != s.selected.ID {
			b := *s.selected
			s.env.confirm(T("Print an older batch?"),
				T("Batch {{.ID}} ({{.Codes}}) was never printed, and batch {{.Newest}} was issued after it. Print batch {{.ID}}?",
					map[string]any{"ID": b.ID, "Codes": codeCount(b.Count), "Newest": newest.ID}),
				T("Print batch {{.ID}}", map[string]any{"ID": b.ID}), func(ok bool) {
					if !ok {
						s.sayPrinted(T("Nothing printed"))
						return
					}
					if s.selected != nil && s.selected.ID == b.ID {
						next(false)
					}
				})
			return
		}
		next(false)
		return
	}
	o, err := s.printOptions()
	if err != nil {
		s.sayPrinted(app.ErrorMessage(err))
		return
	}
	s.askReprint(o, func(part *app.BatchPart) {
		s.reprint = nil
		what := T("Reprint labels")
		if part != nil {
			what = T("Reprint labels: batch {{.ID}}, {{.Part}}", map[string]any{"ID": s.selected.ID, "Part": partName(part)})
		}
		if _, approved := s.env.supervisor(what, func() { next(true) }); approved {
			next(true)
		}
	})
}

// printToPrinter sends the selected batch (or the part of it chosen to
// print again) to the printer, saying how many sheets go out and, when
// done, the printer queue's job.
func (s *issueScreen) printToPrinter(reprint bool) {
	if !s.env.whoIsIn(T("Sign in to print: the print job names who printed it"), func() { s.printToPrinter(reprint) }) {
		return
	}
	printer := s.printer.Selected
	if printer == "" {
		s.sayPrinted(T("No printer is set up: use Save PDF and print the file at 100 % scale"))
		return
	}
	o, err := s.printOptions()
	if err != nil {
		s.sayPrinted(app.ErrorMessage(err))
		return
	}
	b, part := *s.selected, s.part
	s.busy(true)
	if part != nil {
		s.sayPrinted(T("Printing batch {{.ID}}, {{.Part}} again to {{.Printer}}…", map[string]any{"ID": b.ID, "Part": partName(part), "Printer": printer}))
	} else {
		s.sayPrinted(T("Printing batch {{.ID}}: {{.Sheets}} to {{.Printer}}…",
			map[string]any{"ID": b.ID, "Sheets": sheetCount(printing.Pages(o.Template, o.Start, b.Count)), "Printer": printer}))
	}
	s.env.background(func() {
		ctx := context.Background()
		queueJob, warning, n, err := s.runPrint(ctx, o, b.ID, part, reprint, printer)
		var updated app.Batch
		if err == nil {
			updated, err = s.env.svc.Batch(ctx, b.ID)
		}
		onUI(func() {
			s.busy(false)
			if s.part == part {
				s.part = nil // the next Print asks again
			}
			if err != nil {
				s.sayPrinted(printFailure(err))
				return
			}
			s.selected = &updated
			s.sheetUsed(b.ID, part, o, n)
			if queueJob == "" {
				queueJob = "-"
			}
			sheets := sheetCount(printing.Pages(o.Template, o.Start, n))
			if part != nil {
				s.sayPrinted(T("Batch {{.ID}}, {{.Part}}: {{.Sheets}} ({{.Labels}}) sent again to {{.Printer}}, printer queue job {{.Job}}; logged as a reprint of these labels only",
					map[string]any{"ID": b.ID, "Part": partName(part), "Sheets": sheets, "Labels": labelCount(n), "Printer": printer, "Job": queueJob}))
			} else {
				s.sayPrinted(T("Batch {{.ID}}: {{.Sheets}} ({{.Labels}}) sent to {{.Printer}}, printer queue job {{.Job}}",
					map[string]any{"ID": b.ID, "Sheets": sheets, "Labels": labelCount(n), "Printer": printer, "Job": queueJob}))
			}
			if warning != "" {
				s.sayPrinted(s.printStatus.Text + "\n" + T("Check the paper: {{.Warning}}", map[string]any{"Warning": warning}))
			}
			s.refresh()
			s.renderPreview()
		})
	})
}

// runPrint records and sends one print job of the batch, or of part of it;
// the queue shows it under a title that names the batch (and the part). It
// returns the queue's job id and how many labels went.
func (s *issueScreen) runPrint(ctx context.Context, o printing.Options, batchID int64, part *app.BatchPart, reprint bool, printer string) (queueJob, warning string, n int, err error) {
	recs, _, err := s.env.svc.SelectForPrint(ctx, app.PrintSelection{BatchID: batchID, Part: part})
	if err != nil {
		return "", "", 0, err
	}
	title := fmt.Sprintf("qrdesk batch %d (%d labels)", batchID, len(recs))
	if part != nil {
		title = fmt.Sprintf("qrdesk batch %d %s (%d labels)", batchID, part.Describe(), len(recs))
	}
	if reprint {
		title += " reprint"
	}
	job := printing.Job{Records: recs, Options: o, Title: s.env.current().LabelTitle,
		Format: printing.FormatPDF, To: printing.Destination{Printer: printer, Title: title}, Operator: s.env.operator(), Reprint: reprint}
	if printing.IsNetworkPrinter(printer) {
		// A network label printer (Settings: HOST:9100) takes ZPL on its
		// raw port, one label per roll position.
		if !o.Template.Thermal {
			return "", "", 0, app.Errorf(app.KindInvalid, "%s", T("{{.Printer}} is a network label printer (ZPL): choose a roll template for it, not the sheet {{.Template}}",
				map[string]any{"Printer": printer, "Template": o.Template.Name}))
		}
		job.Format, job.To = printing.FormatZPL, printing.Destination{PrinterAddr: printer}
	}
	done, err := printing.Print(ctx, s.env.svc, job)
	return done.QueueJob, done.Warning, len(recs), err
}

// printFailure says what went wrong with a print in the window's terms: the
// service's message names the command line's --resume, which a clerk at
// the window does not need (a failed job counted no prints: Print again).
func printFailure(err error) string {
	var cause *app.Error
	switch {
	case errors.Is(err, printing.ErrNoCUPS):
		return T("This computer has no printing system (CUPS): use Save PDF and print the file at 100 % scale")
	case errors.As(err, &cause) && cause.Kind == app.KindUnavailable && cause.Err != nil:
		return T("The printer did not take the job ({{.Reason}}). Check that it is on and has labels, then press Print again.",
			map[string]any{"Reason": cause.Err.Error()})
	}
	return app.ErrorMessage(err)
}

// sayPrinted says what Print or Save PDF did, under their buttons; the
// line takes no room while there is nothing to say (the screen fits
// 1024 × 600).
func (s *issueScreen) sayPrinted(text string) {
	s.printStatus.SetText(text)
	if text == "" {
		s.printStatus.Hide()
	} else {
		s.printStatus.Show()
	}
	if s.printTop != nil {
		s.printTop.Refresh() // lay the column out again around the line
	}
}
