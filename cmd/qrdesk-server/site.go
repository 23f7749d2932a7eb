package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"qrdesk/serverdb"
)

const siteUsage = `say one of:
  site add NAME                  add a site (a warehouse, a store)
  site rename OLD NEW            rename a site (an upgraded deployment's 'main')
  site list                      the sites and how many stations each has
  site offline                   what a desk does, offline, with a label of another site
  site offline refuse|decide     refuse it ("label of site X: ask the supervisor"),
                                 or decide alone and report (the default)`

var siteCommand = command{
	summary: "add, rename and list the sites; what a desk does offline with another site's label",
	usage:   siteUsage,
	flags: func(*flag.FlagSet) action {
		return func(ctx context.Context, inv *invocation) error {
			return inv.withDB(ctx, inv.adding(), func(st *serverdb.DB) error {
				return site(ctx, st, inv.now, inv.pos, inv.stdout)
			})
		}
	},
}

// site manages the deployment's sites. A station joins one with 'station
// add NAME --site S' or 'station site NAME S'.
func site(ctx context.Context, st *serverdb.DB, now func() time.Time, args []string, out io.Writer) error {
	switch {
	case len(args) == 2 && args[0] == "add":
		if err := st.AddSite(ctx, args[1], now().Unix()); err != nil {
			return err
		}
		fmt.Fprintf(out, "site %s added: enrol its desks with 'qrdesk-server station add NAME --letter L --site \"%s\"'\n", args[1], args[1])
		return nil
	case len(args) == 3 && args[0] == "rename":
		if err := st.RenameSite(ctx, args[1], args[2]); err != nil {
			return err
		}
		fmt.Fprintf(out, "site %s is now called %s\n", args[1], args[2])
		return nil
	case len(args) == 1 && args[0] == "list":
		list, err := st.Sites(ctx)
		if err != nil {
			return err
		}
		for _, s := range list {
			word := "stations"
			if s.Stations == 1 {
				word = "station"
			}
			fmt.Fprintf(out, "%s\t%d %s\n", s.Name, s.Stations, word)
		}
		return nil
	case len(args) == 1 && args[0] == "offline":
		v, err := st.CrossSiteOffline(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "a label of another site scanned offline: %s\n", v)
		return nil
	case len(args) == 2 && args[0] == "offline":
		if err := st.SetCrossSiteOffline(ctx, args[1]); err != nil {
			return err
		}
		fmt.Fprintf(out, "a label of another site scanned offline: %s (the desks learn it at their next sync)\n", args[1])
		return nil
	}
	return usageErr(siteUsage)
}
