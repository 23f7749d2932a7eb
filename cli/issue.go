package cli

import (
	"bufio"
	"context"
	"encoding/json"
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
	fs.StringVar(&req.Type, "type", "", "a type naming the batch in lists and exports (not printed on the label), e.g. pickup")
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
	// The codes are read back from the database as they are printed: a
	// batch of a million held in memory took about 400 MB.
	req.DropCodes = true
	b, _, err := s.svc.Issue(ctx, req)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(s.env.Stdout)
	if s.c.json {
		err = writeIssuedJSON(ctx, w, s.svc, b)
	} else {
		err = writeIssuedText(ctx, w, s.svc, b, *quiet)
	}
	if err != nil {
		return err
	}
	return w.Flush()
}

// writeIssuedText is the batch's summary line, then each code on a line of
// its own unless quiet.
func writeIssuedText(ctx context.Context, w io.Writer, svc *app.Service, b app.Batch, quiet bool) error {
	fmt.Fprintf(w, "batch %d: %s for %s", b.ID, app.Plural(b.Count, "code", "codes"), b.LabelDate)
	if b.FirstSerial > 0 {
		fmt.Fprintf(w, ", serials %d–%d", b.FirstSerial, b.LastSerial)
	}
	if b.ExpireAt != 0 {
		fmt.Fprintf(w, ", expire %s", app.FormatTime(b.ExpireAt))
	}
	fmt.Fprintln(w)
	if quiet {
		return nil
	}
	return svc.EachBatchCode(ctx, b.ID, func(code string) error {
		_, err := fmt.Fprintln(w, code)
		return err
	})
}

// writeIssuedJSON writes {"batch", "date", "count", "codes": [...]} as the
// other commands' indented JSON, the codes as they are read.
func writeIssuedJSON(ctx context.Context, w io.Writer, svc *app.Service, b app.Batch) error {
	date, _ := json.Marshal(b.LabelDate)
	fmt.Fprintf(w, "{\n  \"batch\": %d,\n  \"date\": %s,\n  \"count\": %d,\n  \"codes\": [", b.ID, date, b.Count)
	sep := "\n    "
	err := svc.EachBatchCode(ctx, b.ID, func(code string) error {
		text, _ := json.Marshal(code)
		_, err := fmt.Fprintf(w, "%s%s", sep, text)
		sep = ",\n    "
		return err
	})
	if err != nil {
		return err
	}
	if sep == "\n    " { // no code: as encoding/json writes an empty list
		_, err = io.WriteString(w, "]\n}\n")
		return err
	}
	_, err = io.WriteString(w, "\n  ]\n}\n")
	return err
}
