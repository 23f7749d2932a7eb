package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"qrdesk/central"
	"qrdesk/serverdb"
	"qrdesk/web"
)

const adminUsage = `say one of:
  admin add NAME [--sites "A,B"]   a dashboard account; prints its password once.
                                   --sites limits it to those sites (default: every site)
  admin sites NAME "A,B"           limit an administrator to these sites
  admin sites NAME --all-sites     let them see every site again
  admin sites NAME                 the sites an administrator sees
  admin reset NAME                 a new password (printed once); signs out its browsers
  admin remove NAME                delete the account and sign out its browsers
  admin list`

var adminCommand = command{
	summary: "the web dashboard's administrator accounts",
	usage:   adminUsage,
	flags: func(fs *flag.FlagSet) action {
		var f adminFlags
		fs.StringVar(&f.sites, "sites", "", "admin add: limit the administrator to these sites (\"North,South\"; default every site)")
		fs.BoolVar(&f.allSites, "all-sites", false, "admin sites: let the administrator see every site again")
		return func(ctx context.Context, inv *invocation) error {
			f.sitesSet = isFlagSet(inv.fs, "sites")
			return inv.withDB(ctx, inv.adding(), func(st *serverdb.DB) error {
				return admin(ctx, st, inv.now, inv.pos, f, inv.stdout)
			})
		}
	},
}

// isFlagSet reports whether the command line gave the flag, even empty.
func isFlagSet(fs *flag.FlagSet, name string) (set bool) {
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

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
		return adminAdd(ctx, st, now, args[1], f, out)
	case (len(args) == 2 || len(args) == 3) && args[0] == "sites":
		return adminSites(ctx, st, now, args[1:], f.allSites, out)
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
		return adminList(ctx, st, out)
	}
	return usageErr(adminUsage)
}

// adminAdd is 'admin add NAME [--sites "A,B"]': it prints the password once.
func adminAdd(ctx context.Context, st *serverdb.DB, now func() time.Time, name string, f adminFlags, out io.Writer) error {
	if err := central.ValidateAdminName(name); err != nil {
		return err
	}
	a := central.Admin{Name: name, CreatedAt: now().Unix()}
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
	if a.Sites == nil {
		fmt.Fprintf(out, "administrator %s added. Password (shown once, keep it secret):\n%s\n", name, password)
		return nil
	}
	scope, err := st.AdminScope(ctx, a.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "administrator %s added, limited to %s. Password (shown once, keep it secret):\n%s\n", a.Name, sitesOf(scope), password)
	return nil
}

// adminSites is 'admin sites NAME' (which sites they see), 'admin sites
// NAME "A,B"' and 'admin sites NAME --all-sites'. args: NAME [SITES].
func adminSites(ctx context.Context, st *serverdb.DB, now func() time.Time, args []string, allSites bool, out io.Writer) error {
	name := args[0]
	var sites []string
	switch {
	case len(args) == 1 && !allSites:
		scope, err := st.AdminScope(ctx, name)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "administrator %s sees %s\n", name, sitesOf(scope))
		return nil
	case len(args) == 2 && allSites:
		return usageErr("say either the sites or --all-sites, not both")
	case len(args) == 2:
		var err error
		if sites, err = central.ParseSiteList(args[1]); err != nil {
			return err
		}
	}
	if err := st.SetAdminSites(ctx, name, sites, now().Unix()); err != nil {
		return err
	}
	scope, err := st.AdminScope(ctx, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "administrator %s now sees %s (from their next page: no need to sign in again)\n", name, sitesOf(scope))
	return nil
}

// adminList is 'admin list': name, when added, the sites they see.
func adminList(ctx context.Context, st *serverdb.DB, out io.Writer) error {
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
