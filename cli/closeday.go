package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"qrdesk/app"
	"qrdesk/printing"
)

func init() {
	register("close-day", "close a day: its figures on one page (PDF, JSON, CSV), recorded; closing again shows what changed", runCloseDay)
}

func runCloseDay(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "close-day", "")
	date := fs.String("date", "", "the day YYYY-MM-DD (default: today)")
	expire := fs.Bool("expire-unused", false, "expire that day's labels that are still unused, in the same transaction")
	out := fs.String("o", "", "write the day's page to FILE (PDF)")
	csvOut := fs.String("csv", "", "write the figures to FILE as CSV")
	operator := fs.String("operator", "", "who closes the day (default: $QRDESK_OPERATOR or the login name)")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if *date != "" && !validDate(*date) {
		return usagef("--date %q is not a date: use YYYY-MM-DD", *date)
	}
	if *out != "" && !strings.HasSuffix(strings.ToLower(*out), ".pdf") {
		return usagef("-o %q: the day's page is a PDF, name the file .pdf (use --csv FILE for CSV)", *out)
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	by, err := s.operator(ctx, *operator)
	if err != nil {
		return err
	}
	dc, err := s.svc.CloseDay(ctx, app.CloseDayRequest{Date: *date, ExpireUnused: *expire, Operator: by})
	if err != nil {
		return err
	}
	loc := env.now().Location()
	if *out != "" {
		var buf bytes.Buffer
		english := func(_, en string) string { return en }
		if err := printing.WriteDayReportPDF(&buf, printing.DayCloseReport(dc, loc, english)); err != nil {
			return app.ErrorfWrap(app.KindInternal, err, "cannot make the day's page")
		}
		if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
			return app.ErrorfWrap(app.KindUnavailable, err, "cannot write %s: check the folder exists and is writable", *out)
		}
	}
	if *csvOut != "" {
		var buf bytes.Buffer
		if err := dc.Figures.WriteCSV(&buf); err != nil {
			return err
		}
		if err := os.WriteFile(*csvOut, append([]byte(app.UTF8BOM), buf.Bytes()...), 0o644); err != nil {
			return app.ErrorfWrap(app.KindUnavailable, err, "cannot write %s: check the folder exists and is writable", *csvOut)
		}
	}
	return s.output(dc, func(w io.Writer) {
		at := func(unix int64) string { return time.Unix(unix, 0).In(loc).Format("2006-01-02 15:04") }
		fmt.Fprintf(w, "day %s closed at %s by %s (%s)\n", dc.Figures.Date, at(dc.ClosedAt), dc.Operator, dc.Station)
		if *expire {
			fmt.Fprintf(w, "expired now: %d unused labels of the day here (at the next sync the server expires those of this site whose day has begun there, and every desk follows)\n", dc.ExpiredNow)
		}
		fmt.Fprintf(w, "this desk (%s):\n", dc.Station)
		rows := dc.Figures.Rows()
		width := 34 // the figures' column, wider when a label is longer
		for _, r := range rows {
			width = max(width, utf8.RuneCountInString(r.Label)+2)
		}
		for _, r := range rows {
			label := r.Label
			if r.Sub {
				label = "  " + label
			}
			fmt.Fprintf(w, "%-*s %6d\n", width, label, r.Value)
		}
		writeAllDesks(w, dc.Figures.AllDesks, loc)
		if dc.PreviousAt != 0 {
			fmt.Fprintf(w, "changed since the close at %s:\n", at(dc.PreviousAt))
			if len(dc.Changes) == 0 {
				fmt.Fprintln(w, "  nothing")
			}
			for _, ch := range dc.Changes {
				fmt.Fprintf(w, "  %s\n", ch)
			}
		}
		if *out != "" {
			fmt.Fprintf(w, "page: %s\n", *out)
		}
		if *csvOut != "" {
			fmt.Fprintf(w, "csv: %s\n", *csvOut)
		}
	})
}
