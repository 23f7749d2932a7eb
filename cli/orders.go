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
	// The clerk reads what is wrong with the file in the language LANG
	// names (English or Simplified Chinese); --json carries both and a
	// reason code for each refusal.
	lang := userLanguage(env)
	data, err := readOrderFile(path, lang)
	if err != nil {
		return refusedFile(env, c, path, err)
	}
	f, err := app.ParseOrderFile(data, *enc, printing.CheckPrintable)
	if err != nil {
		return refusedFile(env, c, path, &app.Error{Kind: app.KindInvalid, Err: err,
			Message: fmt.Sprintf(inLanguage(lang, "%s: %s", "%s：%s"), path, app.OrderFileText(err, lang))})
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
	if err := s.output(out, func(w io.Writer) { printOrderImport(w, path, f, res, lang) }); err != nil {
		return err
	}
	if errors.Is(ierr, app.ErrOrderFileRefused) && app.Chinese(lang) {
		return &app.Error{Kind: app.KindInvalid, Err: ierr, Message: app.RefusedRowsText(len(f.Refused), lang)}
	}
	return ierr
}

// refusedFile returns err, the order file's refusal; with --json it first
// prints the refusal's reason code and texts (app.OrderFileError) for a
// script: {"file": …, "refused_file": {"reason": "utf16_text", …}}.
func refusedFile(env *Env, c *common, path string, err error) error {
	var fe *app.OrderFileError
	if c.json && errors.As(err, &fe) {
		out := struct {
			File    string              `json:"file"`
			Refused *app.OrderFileError `json:"refused_file"`
		}{path, fe}
		if oerr := output(env.Stdout, true, out, nil); oerr != nil {
			return oerr
		}
	}
	return err
}

// inLanguage is en, or zh when lang is Chinese.
func inLanguage(lang, en, zh string) string {
	if app.Chinese(lang) {
		return zh
	}
	return en
}

// readOrderFile reads the order file whole, refusing one too large before
// reading it.
func readOrderFile(path, lang string) ([]byte, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, usagef("there is no order file %s", path)
	case err != nil:
		return nil, &app.Error{Kind: app.KindInvalid, Message: fmt.Sprintf("cannot read the order file %s: %v", path, err)}
	case info.IsDir():
		return nil, usagef("%s is a folder: give the order file (CSV)", path)
	case info.Size() > app.MaxOrderFileBytes:
		tooLarge := app.TooLargeError(path, info.Size())
		return nil, &app.Error{Kind: app.KindInvalid, Err: tooLarge, Message: tooLarge.Text(lang)}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &app.Error{Kind: app.KindInvalid, Message: fmt.Sprintf("cannot read the order file %s: %v", path, err)}
	}
	return data, nil
}

func printOrderImport(w io.Writer, path string, f app.OrderFile, res app.OrderImportResult, lang string) {
	if app.Chinese(lang) {
		printOrderImportChinese(w, path, f, res)
		return
	}
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

// printOrderImportChinese is printOrderImport for a Chinese locale
// (LANG=zh_CN.UTF-8), in the window's words (ui/translations/orders).
func printOrderImportChinese(w io.Writer, path string, f app.OrderFile, res app.OrderImportResult) {
	fmt.Fprintf(w, "%s（%s）：%d 个订单，%d 件包裹\n", path, f.Encoding, len(f.Orders), f.Parcels())
	for _, r := range f.Refused {
		fmt.Fprintf(w, "  拒绝：%s\n", r.Text("zh"))
	}
	if len(f.Refused) > 0 {
		return
	}
	verb := "已发放"
	if res.DryRun {
		verb = "将发放"
	}
	for _, o := range res.Issued {
		fmt.Fprintf(w, "  %s：订单 %s，%s，%d 张标签", verb, o.Number, orDash(o.Customer), o.Parcels)
		if o.Batch != 0 {
			fmt.Fprintf(w, "（批次 %d）", o.Batch)
		}
		fmt.Fprintln(w)
	}
	for _, o := range res.Already {
		fmt.Fprintf(w, "  之前已发放：订单 %s，%s，批次 %d，%s：不再重复发放\n", o.Number, orDash(o.Customer), o.Batch, app.FormatTime(o.IssuedAt))
	}
	fmt.Fprintf(w, "%s %d 张标签", verb, res.Labels)
	if len(res.Already) > 0 {
		fmt.Fprintf(w, "；%d 个订单之前已发放", len(res.Already))
	}
	fmt.Fprintln(w)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
