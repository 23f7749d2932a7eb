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
  admin add NAME      a dashboard account; prints its password once
  admin reset NAME    a new password (printed once); signs out its browsers
  admin remove NAME   delete the account and sign out its browsers
  admin list`

// admin manages the web dashboard's administrator accounts.
func admin(ctx context.Context, st *serverdb.DB, now func() time.Time, args []string, out io.Writer) error {
	switch {
	case len(args) == 2 && args[0] == "add":
		if err := central.ValidateAdminName(args[1]); err != nil {
			return err
		}
		password, hash, err := newPassword()
		if err != nil {
			return err
		}
		if err := st.AddAdmin(ctx, central.Admin{Name: args[1], CreatedAt: now().Unix()}, hash); err != nil {
			return err
		}
		fmt.Fprintf(out, "administrator %s added. Password (shown once, keep it secret):\n%s\n", args[1], password)
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
			fmt.Fprintf(out, "%s\tadded %s\n", a.Name, time.Unix(a.CreatedAt, 0).Format("2006-01-02 15:04"))
		}
		return err
	}
	return usageErr(adminUsage)
}

// newPassword makes a password and its hash.
func newPassword() (password, hash string, err error) {
	if password, err = web.NewPassword(); err != nil {
		return "", "", err
	}
	hash, err = web.HashPassword(password)
	return password, hash, err
}
