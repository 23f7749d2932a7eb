package ui

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"qrdesk/app"
	"qrdesk/printing"
)

// The window's import of the day's pickup orders (docs/orders.md): the
// clerk opens the order file, sees what it holds before anything is
// issued (its orders, what will be issued, what was issued before, every
// bad row with its line and why, the encoding read), issues, and prints.

// orderImport is one order file on its way: read, previewed, issued.
type orderImport struct {
	name    string
	file    app.OrderFile
	preview *widget.Label // the preview's text, while it is up
	dialog  dialog.Dialog // the preview (or the refusal) while it is up
	issued  []app.IssuedOrder
	printQ  *dialog.ConfirmDialog // the offer to print, while it is up
}

// chooseOrderFile opens the order file (CSV) to import.
func (s *issueScreen) chooseOrderFile() {
	if !s.env.whoIsIn(T("Sign in to import orders: the batches name who issued them"), s.chooseOrderFile) {
		return
	}
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			s.say(app.ErrorMessage(err))
			return
		}
		if r == nil {
			return // cancelled
		}
		defer r.Close()
		data, err := io.ReadAll(io.LimitReader(r, app.MaxOrderFileBytes+1))
		if err != nil {
			s.say(T("Cannot read the order file: {{.Error}}", map[string]any{"Error": err.Error()}))
			return
		}
		s.previewOrders(r.URI().Name(), data)
	}, s.env.win)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".csv", ".CSV", ".txt", ".tsv"}))
	d.Show()
}

// previewOrders reads the order file and shows what importing it would do;
// nothing is issued until the clerk says so.
func (s *issueScreen) previewOrders(name string, data []byte) *orderImport {
	f, err := app.ParseOrderFile(data, app.EncodingAuto, printing.CheckPrintable)
	if err != nil {
		msg := T("{{.File}}: {{.Error}}", map[string]any{"File": name, "Error": app.OrderFileText(err, language())})
		s.say(msg)
		s.env.showError(userError(msg))
		return nil
	}
	imp := &orderImport{name: name, file: f, preview: widget.NewLabel("")}
	imp.preview.Wrapping = fyne.TextWrapWord
	operator := s.env.operator()
	s.env.background(func() {
		res := app.OrderImportResult{}
		var err error
		if len(f.Refused) == 0 { // what would be issued, and what was before
			res, err = s.env.svc.ImportOrders(context.Background(), f, app.OrderImport{DryRun: true, Operator: operator})
		}
		onUI(func() {
			if err != nil {
				s.say(app.ErrorMessage(err))
				return
			}
			s.showOrderPreview(imp, res)
		})
	})
	return imp
}

// showOrderPreview shows what importing the file would do: a file with bad
// rows or nothing new only says so; otherwise Issue issues it.
func (s *issueScreen) showOrderPreview(imp *orderImport, res app.OrderImportResult) {
	name, f := imp.name, imp.file
	imp.preview.SetText(orderPreviewText(name, f, res))
	scroll := container.NewVScroll(imp.preview)
	scroll.SetMinSize(fyne.NewSize(640, 360))
	switch {
	case len(f.Refused) > 0:
		d := dialog.NewCustom(T("The order file has bad rows"), T("Close"), scroll, s.env.win)
		d.Show()
		imp.dialog = d
		s.say(T("{{.File}}: nothing issued; fix the rows named and import the file again", map[string]any{"File": name}))
	case res.Labels == 0:
		d := dialog.NewCustom(T("Nothing to issue"), T("Close"), scroll, s.env.win)
		d.Show()
		imp.dialog = d
		s.say(T("{{.File}}: every order was issued before; nothing issued", map[string]any{"File": name}))
	default:
		imp.dialog = s.env.confirmWith(T("Import orders"), T("Issue {{.Labels}}", map[string]any{"Labels": labelCount(res.Labels)}), scroll, func(ok bool) {
			if !ok {
				s.say(T("Nothing issued"))
				return
			}
			s.importOrders(imp)
		})
	}
}

// orderPreviewText is the preview: the file, its encoding and counts, then
// each order to issue, each issued before and each bad row.
func orderPreviewText(name string, f app.OrderFile, res app.OrderImportResult) string {
	var b strings.Builder
	b.WriteString(T("{{.File}} ({{.Encoding}}): {{.Orders}}, {{.Parcels}}",
		map[string]any{"File": name, "Encoding": f.Encoding, "Orders": orderCount(len(f.Orders)), "Parcels": parcelCount(f.Parcels())}))
	b.WriteString("\n")
	for _, r := range f.Refused {
		b.WriteString(T("Refused: line {{.Line}}: {{.Why}}", map[string]any{"Line": r.Line, "Why": r.Why(language())}) + "\n")
	}
	if len(f.Refused) > 0 {
		b.WriteString("\n" + T("Nothing will be issued: fix these rows in the file and import it again.") + "\n")
		return b.String()
	}
	for _, o := range res.Issued {
		b.WriteString(T("To issue: order {{.Order}}, {{.Customer}}, {{.Labels}}",
			map[string]any{"Order": o.Number, "Customer": orDash(o.Customer), "Labels": labelCount(o.Parcels)}) + "\n")
	}
	for _, o := range res.Already {
		b.WriteString(T("Issued before: order {{.Order}}, batch {{.Batch}} at {{.Time}}: not issued again",
			map[string]any{"Order": o.Number, "Batch": o.Batch, "Time": app.FormatTime(o.IssuedAt)}) + "\n")
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// orderCount is "1 order" or "3 orders"; parcelCount "1 parcel" or "3 parcels".
func orderCount(n int) string {
	if n == 1 {
		return T("1 order")
	}
	return T("{{.Count}} orders", map[string]any{"Count": n})
}

func parcelCount(n int) string {
	if n == 1 {
		return T("1 parcel")
	}
	return T("{{.Count}} parcels", map[string]any{"Count": n})
}

// importOrders issues the previewed orders, then offers to print them.
func (s *issueScreen) importOrders(imp *orderImport) {
	s.lock(true)
	s.say(T("Issuing…"))
	req := app.OrderImport{Operator: s.env.operator()}
	s.env.background(func() {
		res, err := s.env.svc.ImportOrders(context.Background(), imp.file, req)
		onUI(func() {
			s.lock(false)
			imp.issued = res.Issued
			text := T("{{.File}}: {{.Labels}} issued for {{.Orders}}", map[string]any{"File": imp.name, "Labels": labelCount(res.Labels), "Orders": orderCount(len(res.Issued))})
			if len(res.Already) > 0 {
				text += "; " + T("{{.Orders}} issued before", map[string]any{"Orders": orderCount(len(res.Already))})
			}
			if err != nil {
				text += "\n" + app.ErrorMessage(err)
			}
			s.say(text)
			s.refresh()
			if len(res.Issued) == 0 {
				return
			}
			imp.printQ = s.env.confirm(T("Print the orders' labels?"),
				T("{{.Labels}} of {{.Orders}} issued, one batch per order. Print them now with template {{.Template}}?",
					map[string]any{"Labels": labelCount(res.Labels), "Orders": orderCount(len(res.Issued)), "Template": s.template.Selected}), T("Print"), func(ok bool) {
					if ok {
						s.printOrders(res.Issued)
					}
				})
		})
	})
}

// printOrders prints each order's batch in turn to the printer chosen, or
// saves each as a PDF when there is none.
func (s *issueScreen) printOrders(orders []app.IssuedOrder) {
	if !s.env.whoIsIn(T("Sign in to print: the print job names who printed it"), func() { s.printOrders(orders) }) {
		return
	}
	o, err := s.printOptions()
	if err != nil {
		s.sayPrinted(app.ErrorMessage(err))
		return
	}
	printer := s.printer.Selected
	s.busy(true)
	s.sayPrinted(T("Printing the labels of {{.Orders}}…", map[string]any{"Orders": orderCount(len(orders))}))
	s.env.background(func() {
		ctx := context.Background()
		var done []string
		var failed error
		for _, ord := range orders {
			var err error
			if printer == "" {
				var path string
				path, _, err = s.writePDF(ctx, o, ord.Batch, nil, false)
				done = append(done, filepath.Base(path))
			} else {
				_, _, _, err = s.runPrint(ctx, o, ord.Batch, nil, false, printer)
				done = append(done, fmt.Sprint(ord.Batch))
			}
			if err != nil {
				failed = fmt.Errorf("order %s (batch %d): %w", ord.Number, ord.Batch, err)
				done = done[:len(done)-1]
				break
			}
		}
		onUI(func() {
			s.busy(false)
			text := T("The labels of {{.Orders}} sent to {{.Printer}}", map[string]any{"Orders": orderCount(len(done)), "Printer": printer})
			if printer == "" {
				text = T("The labels of {{.Orders}} saved as PDFs: {{.Files}}; print them at 100 % scale", map[string]any{"Orders": orderCount(len(done)), "Files": strings.Join(done, ", ")})
			}
			if failed != nil {
				text += "\n" + printFailure(failed)
			}
			s.sayPrinted(text)
			s.refresh()
		})
	})
}
