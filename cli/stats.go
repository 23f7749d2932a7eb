package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"qrdesk/app"
)

func init() {
	register("stats", "today's figures: issued, scans, redeemed, refused by reason, unused", runStats)
	register("expire", "mark codes whose expiry passed as expired", runExpire)
}

// validDate reports whether s is a day written YYYY-MM-DD (app.ParseDate,
// the one date parser).
func validDate(s string) bool {
	_, err := app.ParseDate(s, time.Unix(0, 0)) // the syntax only: no clock read
	return s != "" && err == nil
}

func runStats(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "stats", "")
	date := fs.String("date", "", "the day YYYY-MM-DD (default: today)")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if *date != "" && !validDate(*date) {
		return usagef("--date %q is not a date: use YYYY-MM-DD", *date)
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	st, err := s.svc.Stats(ctx, *date)
	if err != nil {
		return err
	}
	loc := env.now().Location()
	return s.output(st, func(w io.Writer) {
		fmt.Fprintf(w, "date      %s\nthis desk:\nfor day   %d (labels of the day, issued here on any day)\nunused    %d (of those, still unused)\nissued    %d (labels made that day, for any day)\nprinted   %d\nscans     %d\nredeemed  %d (labels of any day)\nundone    %d\ntwice     %d (scanned again a moment after redeeming: not refused)\nrefused:\n",
			st.Date, st.ForDay, st.Unused, st.Issued, st.Printed, st.Scans, st.Redeemed, st.Undone, st.JustScanned)
		for _, o := range app.RefusalOutcomes {
			fmt.Fprintf(w, "  %-14s %d\n", o, st.Refused[o])
		}
		writeAllDesks(w, st.AllDesks, loc)
	})
}

func runExpire(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "expire", "")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	n, err := s.svc.Expire(ctx)
	if err != nil {
		return err
	}
	return s.output(map[string]int64{"expired": n}, func(w io.Writer) { fmt.Fprintf(w, "%s marked expired\n", app.Plural(int(n), "code", "codes")) })
}
