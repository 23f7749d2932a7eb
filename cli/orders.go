package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"qrdesk/app"
	"qrdesk/printing"
)

func init() {
	register("orders", "import the day's pickup orders from a CSV file: one label per parcel ('orders import FILE')", runOrders)
}

const ordersUsage = `qrdesk orders import FILE [--encoding auto|utf-8|gbk|windows-1252] [--dry-run] [--date YYYY-MM-DD] [--expires E] [--json]`

func runOrders(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] != "import" {
		return usagef("say what to do with orders: %s", ordersUsage)
	}
	fs, c := newFlags(env, "orders import", "FILE")
	var req app.OrderImport
	enc := fs.String("encoding", app.EncodingAuto, "the file's encoding: "+strings.Join(app.OrderFileEncodings, ", ")+" (auto tells UTF-8, GBK and Windows-1252 apart)")
	fs.BoolVar(&req.DryRun, "dry-run", false, "read the file and say what would be issued; issue nothing")
	fs.StringVar(&req.Date, "date", "", "label date YYYY-MM-DD (default: today)")
	fs.StringVar(&req.Expires, "expires", "", "never, eod or a duration such as 72h (default: the setting)")
	operator := fs.String("operator", "", "who issues the labels")
	fs.StringVar(&req.Supervisor, "supervisor", "", "a supervisor who lets this desk, restored from a backup, issue before it syncs")
	path, err := parseOne(fs, args[1:], "the order file (CSV)")
	if err != nil {
		return err
	}
	data, err := readOrderFile(path)
	if err != nil {
		return err
	}
	f, err := app.ParseOrderFile(data, *enc, printing.CheckPrintable)
	if err != nil {
		return &app.Error{Kind: app.KindInvalid, Message: fmt.Sprintf("%s: %s", path, err)}
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	if req.Operator, err = s.operator(ctx, *operator); err != nil {
		return err
	}
	res, ierr := s.svc.ImportOrders(ctx, f, req)
	out := struct {
		File     string              `json:"file"`
		Encoding string              `json:"encoding"`
		Refused  []app.OrderRowError `json:"refused"`
		app.OrderImportResult
	}{path, f.Encoding, f.Refused, res}
	if err := s.output(out, func(w io.Writer) { printOrderImport(w, path, f, res) }); err != nil {
		return err
	}
	return ierr
}

// readOrderFile reads the order file whole, refusing one too large before
// reading it.
func readOrderFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, usagef("there is no order file %s", path)
	case err != nil:
		return nil, &app.Error{Kind: app.KindInvalid, Message: fmt.Sprintf("cannot read the order file %s: %v", path, err)}
	case info.IsDir():
		return nil, usagef("%s is a folder: give the order file (CSV)", path)
	case info.Size() > app.MaxOrderFileBytes:
		return nil, &app.Error{Kind: app.KindInvalid, Message: fmt.Sprintf("the order file %s is %d bytes, over %d: split it into smaller files", path, info.Size(), app.MaxOrderFileBytes)}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &app.Error{Kind: app.KindInvalid, Message: fmt.Sprintf("cannot read the order file %s: %v", path, err)}
	}
	return data, nil
}

func printOrderImport(w io.Writer, path string, f app.OrderFile, res app.OrderImportResult) {
	fmt.Fprintf(w, "%s (%s): %s, %s\n", path, f.Encoding, app.Plural(len(f.Orders), "order", "orders"), app.Plural(f.Parcels(), "parcel", "parcels"))
	for _, r := range f.Refused {
		fmt.Fprintf(w, "  refused: %s\n", r)
	}
	if len(f.Refused) > 0 {
		return
	}
	verb := "issued"
	if res.DryRun {
		verb = "to issue"
	}
	for _, o := range res.Issued {
		fmt.Fprintf(w, "  %s: order %s, %s, %s", verb, o.Number, orDash(o.Customer), app.Plural(o.Parcels, "label", "labels"))
		if o.Batch != 0 {
			fmt.Fprintf(w, " (batch %d)", o.Batch)
		}
		fmt.Fprintln(w)
	}
	for _, o := range res.Already {
		fmt.Fprintf(w, "  issued before: order %s, %s, batch %d at %s: not issued again\n", o.Number, orDash(o.Customer), o.Batch, app.FormatTime(o.IssuedAt))
	}
	fmt.Fprintf(w, "%s %s", app.Plural(res.Labels, "label", "labels"), verb)
	if len(res.Already) > 0 {
		fmt.Fprintf(w, "; %s issued before", app.Plural(len(res.Already), "order", "orders"))
	}
	fmt.Fprintln(w)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
