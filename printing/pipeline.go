package printing

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"qrdesk/app"
)

// The print pipeline shared by 'qrdesk print' and the window: stored codes
// → labels → PDF or ZPL → file, CUPS queue or raw printer, recorded as a
// print job by the service (so a failed job can be resumed and a reprint is
// logged).

// Formats of the pipeline's output.
const (
	FormatPDF = "pdf"
	FormatZPL = "zpl"
)

// Destination says where a print goes; any of them may be set together.
type Destination struct {
	File        string // write the output to this file
	Printer     string // send it to this CUPS queue (ZPL goes raw)
	PrinterAddr string // send ZPL straight to a network printer at HOST:PORT
	Title       string // the job's title in the printer queue ("" for "qrdesk")
}

// Printed is a recorded print job and, when it went to a CUPS queue, that
// queue's job id (what the printer's own queue shows).
type Printed struct {
	app.PrintJob
	QueueJob string `json:"queue_job,omitempty"`
	// Warning is what the printer's answer leaves to check (a Windows
	// printer that took another paper than the template's, labels fitting).
	Warning string `json:"warning,omitempty"`
}

// Job is one print of stored codes.
type Job struct {
	Records  []app.CodeRecord
	Resumed  *app.PrintJob // a failed job printed again (keeps its id)
	Options  Options
	Title    string // printed on every label
	Format   string // FormatPDF (default) or FormatZPL
	DPI      int    // ZPL resolution: 203 (default) or 300
	To       Destination
	Operator string
	Reprint  bool // codes printed before may be printed again (logged)
}

// Print lays the job's labels out and delivers them, recorded by svc.
func Print(ctx context.Context, svc *app.Service, j Job) (Printed, error) {
	if j.Format == "" {
		j.Format = FormatPDF
	}
	record := app.PrintJob{Operator: j.Operator, Template: j.Options.Template.Name, Format: j.Format,
		Printer: firstOf(j.To.Printer, j.To.PrinterAddr), Output: j.To.File, Reprint: j.Reprint}
	var queueJob, warning string
	prepare := func(recs []app.CodeRecord) (func() error, error) {
		data, err := Render(recs, j.Title, j.Options, j.Format, j.DPI)
		if err != nil {
			return nil, err
		}
		// A Windows printer is drawn on through GDI from the labels
		// themselves, not sent the PDF (spooler_windows.go).
		labels, err := LabelsFor(recs, j.Title)
		if err != nil {
			return nil, err
		}
		return func() (err error) {
			queueJob, warning, err = j.To.deliver(data, j.Format == FormatZPL, &sheet{labels: labels, options: j.Options})
			return err
		}, nil
	}
	done, err := svc.Print(ctx, j.Records, record, j.Resumed, prepare)
	return Printed{PrintJob: done, QueueJob: queueJob, Warning: warning}, err
}

// Render lays stored codes out as labels in format (pdf or zpl). A failure
// is bad input (a template the labels do not fit, a bad start position).
func Render(recs []app.CodeRecord, title string, o Options, format string, dpi int) ([]byte, error) {
	labels, err := LabelsFor(recs, title)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	switch format {
	case FormatZPL:
		if dpi == 0 {
			dpi = 203
		}
		err = WriteZPL(&buf, labels, o, dpi)
	case FormatPDF, "":
		err = WritePDF(&buf, labels, o)
	default:
		return nil, app.Errorf(app.KindInvalid, "%q is not a print format: use pdf or zpl", format)
	}
	if err != nil {
		return nil, &app.Error{Kind: app.KindInvalid, Message: err.Error()}
	}
	return buf.Bytes(), nil
}

// LabelsFor parses stored codes back into labels.
func LabelsFor(recs []app.CodeRecord, title string) ([]Label, error) {
	labels := make([]Label, len(recs))
	for i, r := range recs {
		c, err := app.Parse(r.Code)
		if err != nil {
			return nil, fmt.Errorf("stored code %s cannot be read back: %w", r.Code, err)
		}
		labels[i] = Label{Code: c, Title: title, Ref: r.Ref}
	}
	return labels, nil
}

// sheet is a print's labels and options, for a printer that is drawn on
// rather than sent a file (a Windows printer through the spooler).
type sheet struct {
	labels  []Label
	options Options
}

// Deliver writes data to the file and sends it to the printers set; it
// returns the printer queue's job id when it went to a queue. On Windows a
// PDF page given this way (calibration, scanner test, badges) cannot go to
// a printer: only label sheets (Print) and ZPL can.
func (d Destination) Deliver(data []byte, zpl bool) (queueJob string, err error) {
	queueJob, _, err = d.deliver(data, zpl, nil)
	return queueJob, err
}

func (d Destination) deliver(data []byte, zpl bool, labels *sheet) (queueJob, warning string, err error) {
	if d.File != "" {
		if err := os.WriteFile(d.File, data, 0o644); err != nil {
			return "", "", fmt.Errorf("cannot write %s: %w", d.File, err)
		}
	}
	if d.Printer != "" {
		if queueJob, warning, err = sendToPrinter(d.Printer, firstOf(d.Title, "qrdesk"), data, zpl, labels); err != nil {
			return "", "", err
		}
	}
	if d.PrinterAddr != "" {
		return queueJob, warning, SendRaw(d.PrinterAddr, data)
	}
	return queueJob, warning, nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
