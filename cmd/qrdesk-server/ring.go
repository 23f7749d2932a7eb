package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"qrdesk/serverdb"
)

var ringCommand = command{
	summary: "show or reset the deployment's key-ring binding",
	usage:   "say: ring show, or ring reset",
	flags: func(*flag.FlagSet) action {
		return func(ctx context.Context, inv *invocation) error {
			return inv.withDB(ctx, false, func(st *serverdb.DB) error {
				return ring(ctx, st, inv.pos, inv.stdout)
			})
		}
	},
}

// ring repairs the deployment's key-ring binding: the first desk to call
// binds it, so a desk with the wrong key file can take it first.
func ring(ctx context.Context, st *serverdb.DB, args []string, out io.Writer) error {
	switch {
	case len(args) == 1 && args[0] == "show":
		id, err := st.RingID(ctx)
		fmt.Fprintf(out, "%s\n", orNone(id))
		return err
	case len(args) == 1 && args[0] == "reset":
		if err := st.ResetRing(ctx); err != nil {
			return err
		}
		fmt.Fprintln(out, "key ring binding cleared: the next desk to connect binds its key ring; restart every qrdesk-server process on this database")
		return nil
	}
	return usageErr("say: ring show, or ring reset")
}
