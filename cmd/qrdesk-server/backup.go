package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"qrdesk/serverdb"
)

// backup is 'qrdesk-server backup -o FILE': a consistent copy of the
// database taken while the server serves (serverdb.Backup).
func backup(ctx context.Context, st *serverdb.DB, to string, out io.Writer) error {
	if to == "" {
		return usageErr("give the backup file: qrdesk-server backup -o FILE (a new file: a backup never overwrites one)")
	}
	start := time.Now()
	if err := st.Backup(ctx, to); err != nil {
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
