package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"qrdesk/app"
)

func init() {
	register("search", "find codes by full code, part of a code, serial, or part of a ref or customer name", runSearch)
}

func runSearch(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "search", "[QUERY]")
	status := fs.String("status", "", "only codes with this status: unused, used, expired or disabled")
	date := fs.String("date", "", "only codes with this label date (YYYY-MM-DD)")
	batch := fs.Int64("batch", 0, "only codes of this batch")
	limit := fs.Int("limit", 50, "at most this many results (1–10000)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("give at most one QUERY (put spaces inside quotes)")
	}
	q, err := searchQuery(*status, *date, *batch)
	if err != nil {
		return err
	}
	if len(pos) == 1 {
		q.Text = pos[0]
	}
	if *limit < 1 || *limit > 10000 {
		return usagef("--limit must be from 1 to 10000")
	}
	q.Limit = *limit
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	recs, err := s.svc.Search(ctx, q)
	if err != nil {
		return err
	}
	if recs == nil {
		recs = []app.CodeRecord{}
	}
	return s.output(recs, func(w io.Writer) {
		if len(recs) == 0 {
			fmt.Fprintln(w, "no codes found")
			return
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "CODE\tSTATUS\tBATCH\tREF\tUSED")
		for _, r := range recs {
			used := ""
			if r.UsedAt != 0 {
				used = app.FormatTime(r.UsedAt) + " " + r.UsedStation
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", r.Code, r.Status, r.BatchID, r.Ref, used)
		}
		tw.Flush()
	})
}

// searchQuery validates the filters shared by search and export.
func searchQuery(status, date string, batch int64) (app.SearchQuery, error) {
	var q app.SearchQuery
	if status != "" {
		st, ok := app.ParseStatus(strings.ToLower(status))
		if !ok {
			return q, usagef("--status %q is not a status: use unused, used, expired or disabled", status)
		}
		q.Status = st
	}
	if date != "" {
		if !validDate(date) {
			return q, usagef("--date %q is not a date: use YYYY-MM-DD", date)
		}
		q.LabelDate = date
	}
	if batch < 0 {
		return q, usagef("--batch must be a batch number")
	}
	q.BatchID = batch
	return q, nil
}
