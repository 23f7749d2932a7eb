package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/protocol"
	"qrdesk/serverdb"
)

var reportCommand = command{
	summary: "the conflicts and flagged events of one day, as JSON",
	usage: `say:
  report [--date YYYY-MM-DD] [--site S]`,
	flags: func(fs *flag.FlagSet) action {
		date := fs.String("date", "", "the day YYYY-MM-DD (default today)")
		site := fs.String("site", "", "only this site's conflicts and flagged events")
		return func(ctx context.Context, inv *invocation) error {
			return inv.withDB(ctx, false, func(st *serverdb.DB) error {
				return report(ctx, st, inv.now, *date, *site, inv.stdout)
			})
		}
	},
}

// reportStore is what the report reads.
type reportStore interface {
	ConflictRecords(ctx context.Context, from, to int64) ([]central.ConflictRecord, error)
	FlaggedEvents(ctx context.Context, from, to int64) ([]serverdb.FlaggedEvent, error)
	Sites(ctx context.Context) ([]central.Site, error)
}

// reportedConflict is a conflict as the report prints it: the protocol's
// fields and the site of its label.
type reportedConflict struct {
	protocol.Conflict
	Site string `json:"site"`
}

// report prints the conflicts whose first redemption was on one local day
// (a day is 23 or 25 hours long when the clocks change), and the events
// whose desk time the server did not take at its word. With a site, only
// that site's: the conflicts over its labels or with one of its desks
// taking part, and the flagged events of its desks (the dashboard's
// Conflicts page by site counts the same).
func report(ctx context.Context, st reportStore, now func() time.Time, date, site string, out io.Writer) error {
	today := now()
	from, err := app.ParseDate(date, today)
	if err != nil {
		return usageErr("--date must be YYYY-MM-DD")
	}
	if site != "" {
		if site, err = reportSite(ctx, st, site); err != nil {
			return err
		}
	}
	records, err := st.ConflictRecords(ctx, from.Unix(), from.AddDate(0, 0, 1).Unix())
	if err != nil {
		return err
	}
	list := []reportedConflict{}
	for _, k := range records {
		if site == "" || k.In(site) {
			list = append(list, reportedConflict{k.Conflict, k.Site})
		}
	}
	events, err := st.FlaggedEvents(ctx, from.Unix(), from.AddDate(0, 0, 1).Unix())
	if err != nil {
		return err
	}
	flagged := []serverdb.FlaggedEvent{}
	for _, f := range events {
		if site == "" || f.Site == site {
			flagged = append(flagged, f)
		}
	}
	doc := map[string]any{"date": from.Format("2006-01-02"), "conflicts": list, "flagged_events": flagged}
	if site != "" {
		doc["site"] = site
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// reportSite is the name of the site --site names (any case), or a usage
// error that lists the sites there are.
func reportSite(ctx context.Context, st reportStore, name string) (string, error) {
	sites, err := st.Sites(ctx)
	if err != nil {
		return "", err
	}
	var names []string
	for _, s := range sites {
		if strings.EqualFold(s.Name, name) {
			return s.Name, nil
		}
		names = append(names, s.Name)
	}
	return "", usageErr(fmt.Sprintf("--site %q: there is no such site (the sites: %s)", name, strings.Join(names, ", ")))
}
