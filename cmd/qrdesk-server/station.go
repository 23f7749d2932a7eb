package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"qrdesk/central"
	"qrdesk/server"
	"qrdesk/serverdb"
)

const stationUsage = `say one of:
  station add NAME --letter L [--site S]
                                enrol a desk; L is its station letter (settings station_id),
                                S its site (default: the first site)
  station site NAME S           move a desk to site S (it starts over from S's labels)
  station renew NAME            a new token for a desk (lifts a revocation)
  station letter NAME L         bind a letter to a desk enrolled without one
  station revoke NAME           refuse the desk's token from now on
  station list`

var stationCommand = command{
	summary: "enrol, move, renew and revoke the desks (stations)",
	usage:   stationUsage,
	flags: func(fs *flag.FlagSet) action {
		letter := fs.String("letter", "", "station add: the desk's station letter A–Z (its settings station_id)")
		site := fs.String("site", "", "station add: the desk's site (default: the first site, 'main' after an upgrade)")
		return func(ctx context.Context, inv *invocation) error {
			return inv.withDB(ctx, inv.adding(), func(st *serverdb.DB) error {
				return station(ctx, st, inv.now, inv.pos, *letter, *site, inv.stdout)
			})
		}
	},
}

// station runs one station command on an open database.
func station(ctx context.Context, st *serverdb.DB, now func() time.Time, args []string, letter, siteName string, out io.Writer) error {
	switch {
	case len(args) == 2 && args[0] == "add":
		token, err := newToken()
		if err != nil {
			return err
		}
		s := central.Station{Name: args[1], Letter: strings.ToUpper(letter), CreatedAt: now().Unix(), Site: siteName}
		if err := st.AddStation(ctx, s, server.HashToken(token)); err != nil {
			return err
		}
		where := ""
		if siteName != "" {
			where = ", site " + siteName
		}
		fmt.Fprintf(out, "station %s added (letter %s%s). Its token (shown once, keep it secret):\n%s\n", s.Name, orNone(s.Letter), where, token)
		return nil
	case len(args) == 3 && args[0] == "site":
		if err := st.SetStationSite(ctx, args[1], args[2]); err != nil {
			return err
		}
		fmt.Fprintf(out, "station %s is in site %s now; its desk starts over from that site's labels at its next sync\n", args[1], args[2])
		return nil
	case len(args) == 2 && args[0] == "renew":
		token, err := newToken()
		if err != nil {
			return err
		}
		if err := st.RenewStation(ctx, args[1], server.HashToken(token)); err != nil {
			return err
		}
		fmt.Fprintf(out, "station %s has a new token; the old one no longer works (shown once, keep it secret):\n%s\n", args[1], token)
		return nil
	case len(args) == 3 && args[0] == "letter":
		return st.SetStationLetter(ctx, args[1], strings.ToUpper(args[2]))
	case len(args) == 2 && args[0] == "revoke":
		return st.RevokeStation(ctx, args[1], now().Unix())
	case len(args) == 1 && args[0] == "list":
		list, err := st.Stations(ctx)
		if err != nil {
			return err
		}
		unbound, err := st.Unbound(ctx)
		if err != nil {
			return err
		}
		why := map[string]string{}
		for _, u := range unbound {
			why[u.Name] = u.Why()
		}
		for _, s := range list {
			state := "active"
			if s.RevokedAt != 0 {
				state = "revoked"
			}
			if w := why[s.Name]; w != "" {
				state += "\t" + w
			}
			fmt.Fprintf(out, "%s\t%s\t%s\t%s\n", s.Name, orNone(s.Letter), s.Site, state)
		}
		return nil
	}
	return usageErr(stationUsage)
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newToken() (string, error) {
	buf := make([]byte, 24)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	return "qrd_" + hex.EncodeToString(buf), nil
}
