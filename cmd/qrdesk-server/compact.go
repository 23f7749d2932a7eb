package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"qrdesk/central"
	"qrdesk/server"
	"qrdesk/serverdb"
)

var compactCommand = command{
	summary: "drop the feed's changes every active desk has read (serve does it every 10 minutes)",
	usage:   "say: compact",
	flags: func(*flag.FlagSet) action {
		return func(ctx context.Context, inv *invocation) error {
			return inv.withDB(ctx, false, func(st *serverdb.DB) error {
				n, err := st.Compact(ctx, inv.now().Add(-staleDesk).Unix())
				if err == nil {
					fmt.Fprintf(inv.stdout, "dropped %d changes every active desk has read\n", n)
				}
				return err
			})
		}
	},
}

// The feed is compacted every compactEvery below what every desk has
// read; a desk silent for longer than staleDesk does not hold it back (it
// starts over from a snapshot when it returns).
const (
	compactEvery = 10 * time.Minute
	staleDesk    = 30 * 24 * time.Hour
)

func compact(ctx context.Context, api *server.API, st central.Store, log *slog.Logger, now func() time.Time) {
	if err := api.FlushAcks(ctx); err != nil {
		log.Warn("could not store how far the desks read the feed", "error", err.Error())
		return
	}
	n, err := st.Compact(ctx, now().Add(-staleDesk).Unix())
	if err != nil {
		log.Warn("feed compaction failed", "error", err.Error())
		return
	}
	if n > 0 {
		log.Info("feed compacted", "dropped", n)
	}
}
