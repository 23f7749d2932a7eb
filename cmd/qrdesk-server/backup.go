package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"qrdesk/serverdb"
)

var backupCommand = command{
	summary: "a consistent copy of the database while the server serves",
	usage: `say:
  backup -o FILE                 write a backup to FILE (a new file)
  backup --failed REASON         only record that a backup failed`,
	flags: func(fs *flag.FlagSet) action {
		to := fs.String("o", "", "the new file to write the backup to")
		failed := fs.String("failed", "", "take no backup, only record that one failed, with this reason (the backup service's OnFailure=)")
		return func(ctx context.Context, inv *invocation) error {
			return inv.withDB(ctx, false, func(st *serverdb.DB) error {
				return backup(ctx, st, inv.now, *to, *failed, inv.stdout, inv.stderr)
			})
		}
	},
}

// backup is 'qrdesk-server backup -o FILE': a consistent copy of the
// database taken while the server serves (serverdb.Backup). Its outcome
// is recorded in the database, whose metrics say when the last backup
// succeeded and whether the latest failed. 'backup --failed REASON' only
// records a failure: the backup service's OnFailure= unit runs it when the
// service failed before the backup could say so itself.
func backup(ctx context.Context, st *serverdb.DB, now func() time.Time, to, failed string, out, errOut io.Writer) error {
	if failed != "" {
		if err := st.RecordBackup(ctx, now().Unix(), errors.New(failed)); err != nil {
			return fmt.Errorf("cannot record the failed backup in the database: %w", err)
		}
		fmt.Fprintf(out, "recorded a failed backup: %s\n", failed)
		return nil
	}
	if to == "" {
		return usageErr("give the backup file: qrdesk-server backup -o FILE (a new file: a backup never overwrites one)")
	}
	start := time.Now()
	err := st.Backup(ctx, to)
	if rerr := st.RecordBackup(ctx, now().Unix(), err); rerr != nil {
		// The database that cannot take this row may still have been
		// copied; the metric's last success then stays where it was.
		fmt.Fprintf(errOut, "qrdesk-server backup: cannot record the backup's outcome in the database: %v\n", rerr)
	}
	if err != nil {
		return err
	}
	size := int64(0)
	if fi, err := os.Stat(to); err == nil {
		size = fi.Size()
	}
	fmt.Fprintf(out, "backup written to %s (%s, %.1f s); restore it with: qrdesk-server restore %s\n", to, humanBytes(size), time.Since(start).Seconds(), to)
	return nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
