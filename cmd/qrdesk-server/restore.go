package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"qrdesk/serverdb"
)

var restoreCommand = command{
	summary: "replace the database with a backup (the server stopped)",
	usage: `say:
  restore FILE                   the backup replaces --db's database
  restore FILE --feed-above N    the same, the feed going on above cursor N (the database
                                 replaced is lost: N is your export script's last cursor)
  restore --epoch-only           only start a new history epoch (after a restore made by hand)`,
	flags: func(fs *flag.FlagSet) action {
		epochOnly := fs.Bool("epoch-only", false, "only start a new history epoch (after a restore made by hand)")
		feedAbove := fs.Int64("feed-above", 0, "restore: number the feed above this cursor (the last one an export script of the lost database holds)")
		return func(ctx context.Context, inv *invocation) error {
			if *feedAbove < 0 {
				return usageErr(fmt.Sprintf("--feed-above %d: say a cursor, 0 or more", *feedAbove))
			}
			// Not opened first: the backup replaces the database.
			return restore(ctx, inv.db, inv.pos, *epochOnly, *feedAbove, inv.now, inv.stdout)
		}
	},
}

// restore is 'qrdesk-server restore FILE' with the server stopped: the
// backup replaces the database (the SQLite file that was there is kept
// beside it), and a new history epoch starts, so every desk sends
// everything again at its next sync. 'restore --epoch-only' starts the
// epoch alone, after a restore made by hand (a PostgreSQL base backup).
func restore(ctx context.Context, db string, pos []string, epochOnly bool, feedAbove int64, now func() time.Time, out io.Writer) error {
	if epochOnly {
		if feedAbove > 0 {
			return usageErr("--feed-above goes with 'restore FILE': the epoch alone does not renumber the feed")
		}
		if len(pos) != 0 {
			return usageErr("restore --epoch-only takes no file: it starts a new history epoch on --db after a restore made by hand")
		}
		st, err := serverdb.Open(ctx, db)
		if err != nil {
			return err
		}
		defer st.Close()
		n, err := st.StartEpoch(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "history epoch %d started: every desk sends everything again at its next sync\n", n)
		return nil
	}
	if len(pos) != 1 {
		return usageErr("say: qrdesk-server restore FILE --db DATABASE (with the server stopped)")
	}
	r, err := serverdb.RestoreAbove(ctx, pos[0], db, now(), feedAbove)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "restored %s into %s: %d stations, %d codes; history epoch %d started: every desk sends everything again at its next sync\n",
		pos[0], serverdb.RedactDSN(db), r.Stations, r.Codes, r.Epoch)
	fmt.Fprintf(out, "the feed goes on after cursor %d: export scripts continue with the cursor they have (an event they had comes again under its id)\n", r.FeedHead)
	if r.NoFeedReplaced {
		fmt.Fprintf(out, "warning: there was no server database at %s to say where its feed ended: an export script holding a cursor above %d would skip what is decided next; restore again with --feed-above CURSOR (its last cursor) before starting the server\n", serverdb.RedactDSN(db), r.FeedHead)
	}
	if r.Aside != "" {
		fmt.Fprintf(out, "the database that was there is kept at %s\n", r.Aside)
	}
	fmt.Fprintln(out, "start the server now")
	return nil
}
