package cli

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"qrdesk/app"
	"qrdesk/printing"
)

func init() {
	register("print", "print labels: PDF sheets or rolls, or ZPL for thermal printers", runPrint)
}

type printFlags struct {
	batch                int64
	sheet                int
	serials              string
	date, codesFile      string
	resume               int64
	template             string
	start                int
	offsetX, offsetY     float64
	reprint, calibration bool
	scannerTest          bool
	badges               bool
	out, format          string
	dpi                  int
	printer, printerAddr string
	operator             string
}

// runPrint parses and checks the flags, opens the desk, then prints what
// they select: a calibration page, the scanner test label, the badges, or
// labels.
func runPrint(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "print", "(--batch ID | --date D | --codes FILE | --resume JOB | --calibration) -o FILE")
	var f printFlags
	f.declare(fs)
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	set, err := s.svc.Settings(ctx)
	if err != nil {
		return err
	}
	opts, err := f.options(fs, templateDir(c), set, env.now())
	if err != nil {
		return err
	}
	switch {
	case f.calibration:
		return printCalibration(s, f, opts)
	case f.scannerTest:
		return printScannerTest(s, f, opts)
	case f.badges:
		return printBadges(ctx, s, f, opts)
	}
	return printLabels(ctx, env, s, f, opts, set.LabelTitle)
}

// declare declares print's flags on fs.
func (f *printFlags) declare(fs *flag.FlagSet) {
	fs.Int64Var(&f.batch, "batch", 0, "print the codes of this batch")
	fs.StringVar(&f.date, "date", "", "print the codes with this label date (YYYY-MM-DD)")
	fs.StringVar(&f.codesFile, "codes", "", "print the codes listed in FILE, one per line (- for standard input)")
	fs.IntVar(&f.sheet, "sheet", 0, "with --batch: only this sheet of the batch (from 1, as laid out with --start), e.g. after a jam")
	fs.StringVar(&f.serials, "serials", "", "with --batch: only the labels with these serials, FROM-TO as printed (A0041-A0060)")
	fs.Int64Var(&f.resume, "resume", 0, "print a failed job again")
	fs.StringVar(&f.template, "template", "", "label template (default: the setting; 'qrdesk templates' lists them)")
	// From 1, as the window's "Start at position" counts (it used to skip N:
	// --start 10 printed from position 11 where the window's 10 prints at 10).
	fs.IntVar(&f.start, "start", 1, "the label position to print from on a partly used sheet, counted from 1 (the first label)")
	fs.Float64Var(&f.offsetX, "offset-x", 0, "move every label right by MM (default: the calibration setting)")
	fs.Float64Var(&f.offsetY, "offset-y", 0, "move every label down by MM (default: the calibration setting)")
	fs.BoolVar(&f.reprint, "reprint", false, "allow printing codes that were printed before (logged as a reprint)")
	fs.BoolVar(&f.calibration, "calibration", false, "print a calibration page with crosses at every label corner and a ruler")
	fs.BoolVar(&f.scannerTest, "scanner-test", false, "print the scanner test label (then run 'qrdesk scanner-test' and scan it)")
	fs.BoolVar(&f.badges, "badges", false, "print a sign-in badge for every current operator ('qrdesk operators')")
	fs.StringVar(&f.out, "o", "", "write the output to FILE (.pdf or .zpl)")
	fs.StringVar(&f.format, "format", "pdf", "pdf, or zpl for Zebra-compatible thermal printers")
	fs.IntVar(&f.dpi, "dpi", 203, "thermal printer resolution for ZPL: 203 or 300")
	fs.StringVar(&f.printer, "printer", "", "send to this printer: a CUPS queue, or on Windows an installed printer (ZPL goes raw)")
	fs.StringVar(&f.printerAddr, "printer-addr", "", "send ZPL straight to a network printer at HOST:PORT (usually port 9100)")
	fs.StringVar(&f.operator, "operator", "", "who prints")
}

// check refuses flags that cannot go together, before the desk is opened.
func (f *printFlags) check() error {
	if f.format != "pdf" && f.format != "zpl" {
		return usagef("--format %q is not a format: use pdf or zpl", f.format)
	}
	if f.out == "" && f.printer == "" && f.printerAddr == "" {
		return usagef("say where the labels go: -o FILE, --printer NAME or --printer-addr HOST:PORT")
	}
	if f.printerAddr != "" && f.format != "zpl" {
		return usagef("--printer-addr sends raw ZPL: add --format zpl (or use --printer for a CUPS queue)")
	}
	return nil
}

// options is the layout: the template (the flag's or the setting's), the
// start position, and the calibration offsets (the flags' or the
// settings').
func (f *printFlags) options(fs *flag.FlagSet, templates string, set app.Settings, now time.Time) (printing.Options, error) {
	if f.template == "" {
		f.template = set.Template
	}
	tmpl, err := printing.FindTemplate(templates, f.template)
	if err != nil {
		return printing.Options{}, &app.Error{Kind: app.KindInvalid, Message: err.Error()}
	}
	if f.start < 1 {
		return printing.Options{}, usagef("--start %d: positions count from 1, the first label of the sheet", f.start)
	}
	opts := printing.Options{Template: tmpl, Start: f.start - 1, OffsetX: set.OffsetX, OffsetY: set.OffsetY, EC: set.QREC, Created: now}
	if isFlagSet(fs, "offset-x") {
		opts.OffsetX = f.offsetX
	}
	if isFlagSet(fs, "offset-y") {
		opts.OffsetY = f.offsetY
	}
	return opts, nil
}

// selection is the codes the flags pick: a batch (or one sheet or serial
// range of it), a label date, a code list or a failed job. A part of a
// batch moves opts.Start to where its first label was.
func (f *printFlags) selection(env *Env, opts *printing.Options) (app.PrintSelection, error) {
	sel := app.PrintSelection{BatchID: f.batch, Date: f.date, ResumeJob: f.resume}
	if f.sheet != 0 || f.serials != "" {
		part, err := f.batchPart(opts.Template.PerPage(), opts.Start)
		if err != nil {
			return sel, err
		}
		if start := part.StartPosition(); start >= 0 {
			opts.Start = start // the sheet's labels go where they were
		}
		sel.Part = part
	}
	if f.codesFile != "" {
		var err error
		if sel.Codes, err = readCodeList(env, f.codesFile); err != nil {
			return sel, err
		}
	}
	return sel, nil
}

// batchPart is --sheet or --serials: one part of --batch.
func (f *printFlags) batchPart(perSheet, skip int) (*app.BatchPart, error) {
	if f.batch == 0 {
		return nil, usagef("--sheet and --serials pick labels of one batch: add --batch ID")
	}
	if f.sheet != 0 && f.serials != "" {
		return nil, usagef("give --sheet or --serials, not both")
	}
	if f.sheet < 0 {
		return nil, usagef("--sheet %d: sheets count from 1", f.sheet)
	}
	part := &app.BatchPart{Sheet: f.sheet, PerSheet: perSheet, Skip: skip}
	if f.serials != "" {
		part.From, part.To = splitSerials(f.serials)
	}
	return part, nil
}

// printLabels prints the selected codes as one job and says what it did.
func printLabels(ctx context.Context, env *Env, s *session, f printFlags, opts printing.Options, title string) error {
	sel, err := f.selection(env, &opts)
	if err != nil {
		return err
	}
	by, err := s.operator(ctx, f.operator)
	if err != nil {
		return err
	}
	recs, resumed, err := s.svc.SelectForPrint(ctx, sel)
	if err != nil {
		return err
	}
	done, err := printing.Print(ctx, s.svc, printing.Job{Records: recs, Resumed: resumed, Options: opts, Title: title,
		Format: f.format, DPI: f.dpi, To: f.destination(), Operator: by, Reprint: f.reprint})
	if err != nil {
		return err
	}
	if done.Warning != "" {
		fmt.Fprintln(env.Stderr, "warning:", done.Warning)
	}
	return s.output(done, func(w io.Writer) {
		what := "printed"
		if done.Reprint {
			what = "reprinted"
		}
		fmt.Fprintf(w, "job %d: %s %s on %s", done.ID, app.Plural(done.Codes, "label", "labels"), what, opts.Template.Name)
		if sel.Part != nil {
			fmt.Fprintf(w, " (batch %d, %s)", f.batch, sel.Part.Describe())
		}
		if f.format == "pdf" {
			fmt.Fprintf(w, " (%s)", app.Plural(printing.Pages(opts.Template, opts.Start, len(recs)), "page", "pages"))
		}
		for _, dest := range []string{f.out, f.printer, f.printerAddr} {
			if dest != "" {
				fmt.Fprintf(w, " → %s", dest)
			}
		}
		fmt.Fprintln(w)
	})
}

// splitSerials reads FROM-TO ("A0041-A0060", also with "–" or ".."); a
// single serial is FROM alone.
func splitSerials(s string) (from, to string) {
	for _, sep := range []string{"..", "–", "-"} {
		if a, b, ok := strings.Cut(s, sep); ok {
			return strings.TrimSpace(a), strings.TrimSpace(b)
		}
	}
	return strings.TrimSpace(s), ""
}

// destination is where the flags send the output.
func (f printFlags) destination() printing.Destination {
	return printing.Destination{File: f.out, Printer: f.printer, PrinterAddr: f.printerAddr}
}

func printCalibration(s *session, f printFlags, opts printing.Options) error {
	if f.format != "pdf" {
		return usagef("the calibration page is a PDF: leave out --format")
	}
	var buf bytes.Buffer
	if err := printing.WriteCalibrationPDF(&buf, opts); err != nil {
		return err
	}
	if _, err := f.destination().Deliver(buf.Bytes(), f.format == printing.FormatZPL); err != nil {
		return err
	}
	return s.output(map[string]any{"calibration": opts.Template.Name, "output": f.out}, func(w io.Writer) {
		fmt.Fprintf(w, "calibration page for %s written; print it at 100 %%, measure, then 'qrdesk settings --offset-x MM --offset-y MM'\n", opts.Template.Name)
	})
}

// readCodeList reads one code per line; blank lines and # comments are skipped.
func readCodeList(env *Env, path string) ([]string, error) {
	var r io.Reader = env.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, &app.Error{Kind: app.KindInvalid, Message: fmt.Sprintf("cannot read the code list %s: %v", path, err)}
		}
		defer f.Close()
		r = f
	}
	var codes []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			codes = append(codes, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(codes) == 0 {
		return nil, usagef("the code list %s has no codes", path)
	}
	return codes, nil
}

// printScannerTest prints one label whose QR holds every character a code
// can contain (app.ScannerTestPayload).
func printScannerTest(s *session, f printFlags, opts printing.Options) error {
	var buf bytes.Buffer
	var err error
	if f.format == "zpl" {
		err = printing.WriteTestLabelZPL(&buf, app.ScannerTestPayload, opts, f.dpi)
	} else {
		err = printing.WriteTestLabelPDF(&buf, app.ScannerTestPayload, opts)
	}
	if err != nil {
		return &app.Error{Kind: app.KindInvalid, Message: err.Error()}
	}
	if _, err := f.destination().Deliver(buf.Bytes(), f.format == printing.FormatZPL); err != nil {
		return err
	}
	return s.output(map[string]any{"scanner_test": opts.Template.Name, "output": f.out}, func(w io.Writer) {
		fmt.Fprintln(w, "scanner test label written; scan it at the desk with 'qrdesk scanner-test' (or on the Scan screen)")
	})
}
