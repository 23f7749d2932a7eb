package cli

import (
	"context"
	"fmt"
	"io"

	"qrdesk/app"
)

func init() {
	register("issue", "issue one batch of codes (all or nothing)", runIssue)
}

func runIssue(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "issue", "")
	var req app.IssueRequest
	fs.IntVar(&req.Count, "count", 0, "number of codes (default: the daily setting; at most 1,000,000)")
	fs.StringVar(&req.Date, "date", "", "label date YYYY-MM-DD (default: today)")
	fs.StringVar(&req.Type, "type", "", "a type printed on the label, e.g. pickup")
	fs.StringVar(&req.Ref, "ref", "", "a reference, e.g. an order number")
	fs.StringVar(&req.Expires, "expires", "", "never, eod or a duration such as 72h (default: the setting)")
	operator := fs.String("operator", "", "who issues the batch")
	supervisor := fs.String("supervisor", "", "a supervisor who lets this desk, restored from a backup, issue before it syncs")
	quiet := fs.Bool("quiet", false, "print only the summary, not every code")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if req.Count < 0 || (req.Count == 0 && isFlagSet(fs, "count")) {
		return usagef("--count must be from 1 to %d", app.MaxBatch)
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	if req.Operator, err = s.operator(ctx, *operator); err != nil {
		return err
	}
	req.Supervisor = *supervisor
	b, codes, err := s.svc.Issue(ctx, req)
	if err != nil {
		return err
	}
	texts := make([]string, len(codes))
	for i, code := range codes {
		texts[i] = code.String()
	}
	out := struct {
		Batch int64    `json:"batch"`
		Date  string   `json:"date"`
		Count int      `json:"count"`
		Codes []string `json:"codes"`
	}{b.ID, b.LabelDate, b.Count, texts}
	return s.output(out, func(w io.Writer) {
		fmt.Fprintf(w, "batch %d: %s for %s", b.ID, app.Plural(b.Count, "code", "codes"), b.LabelDate)
		if b.FirstSerial > 0 {
			fmt.Fprintf(w, ", serials %d–%d", b.FirstSerial, b.LastSerial)
		}
		if b.ExpireAt != 0 {
			fmt.Fprintf(w, ", expire %s", app.FormatTime(b.ExpireAt))
		}
		fmt.Fprintln(w)
		if !*quiet {
			for _, t := range texts {
				fmt.Fprintln(w, t)
			}
		}
	})
}
