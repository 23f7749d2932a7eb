package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"qrdesk/central"
	"qrdesk/serverdb"
	"qrdesk/web"
)

// dashboardDB is what serve needs of the database with the dashboard:
// the API's and the metrics' store (serverDB) and the dashboard's.
type dashboardDB interface {
	serverDB
	web.Store
}

const adminUsage = `say one of:
  admin add NAME [--sites "A,B"]   a dashboard account; prints its password once.
                                   --sites limits it to those sites (default: every site)
  admin sites NAME "A,B"           limit an administrator to these sites
  admin sites NAME --all-sites     let them see every site again
  admin sites NAME                 the sites an administrator sees
  admin reset NAME                 a new password (printed once); signs out its browsers
  admin remove NAME                delete the account and sign out its browsers
  admin list`

// adminFlags are the admin command's flags: --sites (add) and --all-sites
// (sites).
type adminFlags struct {
	sites    string
	sitesSet bool // --sites was given, even empty (refused: no site)
	allSites bool
}

// admin manages the web dashboard's administrator accounts.
func admin(ctx context.Context, st *serverdb.DB, now func() time.Time, args []string, f adminFlags, out io.Writer) error {
	if f.sitesSet && (len(args) == 0 || args[0] != "add") {
		return usageErr("--sites goes with 'admin add NAME'; to change an administrator's sites say 'admin sites NAME \"A,B\"'")
	}
	if f.allSites && (len(args) < 2 || args[0] != "sites") {
		return usageErr("--all-sites goes with 'admin sites NAME'")
	}
	switch {
	case len(args) == 2 && args[0] == "add":
		if err := central.ValidateAdminName(args[1]); err != nil {
			return err
		}
		a := central.Admin{Name: args[1], CreatedAt: now().Unix()}
		if f.sitesSet {
			var err error
			if a.Sites, err = central.ParseSiteList(f.sites); err != nil {
				return err
			}
		}
		password, hash, err := newPassword()
		if err != nil {
			return err
		}
		if err := st.AddAdmin(ctx, a, hash); err != nil {
			return err
		}
		if a.Sites != nil {
			scope, err := st.AdminScope(ctx, a.Name)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "administrator %s added, limited to %s. Password (shown once, keep it secret):\n%s\n", a.Name, sitesOf(scope), password)
			return nil
		}
		fmt.Fprintf(out, "administrator %s added. Password (shown once, keep it secret):\n%s\n", args[1], password)
		return nil
	case (len(args) == 2 || len(args) == 3) && args[0] == "sites":
		var sites []string
		switch {
		case len(args) == 2 && !f.allSites:
			scope, err := st.AdminScope(ctx, args[1])
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "administrator %s sees %s\n", args[1], sitesOf(scope))
			return nil
		case len(args) == 3 && f.allSites:
			return usageErr("say either the sites or --all-sites, not both")
		case len(args) == 3:
			var err error
			if sites, err = central.ParseSiteList(args[2]); err != nil {
				return err
			}
		}
		if err := st.SetAdminSites(ctx, args[1], sites, now().Unix()); err != nil {
			return err
		}
		scope, err := st.AdminScope(ctx, args[1])
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "administrator %s now sees %s (from their next page: no need to sign in again)\n", args[1], sitesOf(scope))
		return nil
	case len(args) == 2 && args[0] == "reset":
		password, hash, err := newPassword()
		if err != nil {
			return err
		}
		if err := st.ResetAdminPassword(ctx, args[1], hash, now().Unix()); err != nil {
			return err
		}
		fmt.Fprintf(out, "administrator %s has a new password; the old one no longer works and their browsers are signed out (shown once, keep it secret):\n%s\n", args[1], password)
		return nil
	case len(args) == 2 && args[0] == "remove":
		if err := st.RemoveAdmin(ctx, args[1], now().Unix()); err != nil {
			return err
		}
		fmt.Fprintf(out, "administrator %s removed; their browsers are signed out\n", args[1])
		return nil
	case len(args) == 1 && args[0] == "list":
		list, err := st.Admins(ctx)
		for _, a := range list {
			scope := central.Scope{All: a.Sites == nil}
			for _, name := range a.Sites {
				scope.Sites = append(scope.Sites, central.Site{Name: name})
			}
			fmt.Fprintf(out, "%s\tadded %s\t%s\n", a.Name, time.Unix(a.CreatedAt, 0).Format("2006-01-02 15:04"), sitesOf(scope))
		}
		return err
	}
	return usageErr(adminUsage)
}

// sitesOf says which sites a scope holds: "every site", "site North" or
// "sites North, South".
func sitesOf(s central.Scope) string {
	switch {
	case s.All:
		return "every site"
	case len(s.Sites) == 1:
		return "site " + s.Names()
	}
	return "sites " + s.Names()
}

// newPassword makes a password and its hash.
func newPassword() (password, hash string, err error) {
	if password, err = web.NewPassword(); err != nil {
		return "", "", err
	}
	hash, err = web.HashPassword(password)
	return password, hash, err
}
