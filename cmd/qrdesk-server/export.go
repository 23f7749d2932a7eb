package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"

	"qrdesk/serverdb"
	"qrdesk/webhook"
)

var exportCommand = command{
	summary: "the decided events after a cursor as JSON lines, for systems that pull",
	usage: `say:
  export --since CURSOR [--limit N]
      one event a line (the webhooks' JSON); each carries its cursor, and the
      last line's is the next --since (also said on stderr). --since 0: from
      the oldest the server still holds`,
	flags: func(fs *flag.FlagSet) action {
		since := fs.Int64("since", -1, "the cursor to continue after (0: from the oldest event held)")
		limit := fs.Int("limit", 10000, "at most this many events")
		return func(ctx context.Context, inv *invocation) error {
			if *since < 0 {
				return usageErr("give --since CURSOR: 0 the first time, then the cursor the last export ended with")
			}
			if *limit < 1 {
				return usageErr("--limit must be 1 or more")
			}
			return inv.withDB(ctx, false, func(st *serverdb.DB) error {
				return export(ctx, st, *since, *limit, inv)
			})
		}
	},
}

// export prints the events after since, a page at a time, up to limit.
func export(ctx context.Context, st *serverdb.DB, since int64, limit int, inv *invocation) error {
	floor, head, err := st.FeedBounds(ctx)
	if err != nil {
		return err
	}
	switch {
	case since == 0:
		since = floor
	case since > head:
		// A cursor this server never gave: it was restored from a backup
		// taken before it (or the cursor is another server's). Taken as
		// is, every event decided until the feed grows past it again
		// would be skipped.
		return usageErr(fmt.Sprintf("cursor %d is past the end of the server's feed, which ends at cursor %d: the server was restored from a backup since your last export, or the cursor is another server's; continue with --since %d (an event you have comes again under its id)", since, head, head))
	}
	enc := json.NewEncoder(inv.stdout)
	next, n := since, 0
	for n < limit {
		evs, scanned, err := st.Handovers(ctx, next, min(1000, limit-n))
		var ce *webhook.CompactedError
		if errors.As(err, &ce) {
			return usageErr(err.Error())
		}
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if err := enc.Encode(ev); err != nil {
				return err
			}
			n++
		}
		if scanned == next {
			break
		}
		next = scanned
	}
	fmt.Fprintf(inv.stderr, "%d events; next cursor: %d\n", n, next)
	return nil
}
