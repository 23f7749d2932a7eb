package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"qrdesk/app"
	"qrdesk/store"
)

func init() {
	register("restore", "replace the database with a backup made under the same key ring", runRestore)
}

func runRestore(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "restore", "FILE")
	path, err := parseOne(fs, args, "backup FILE")
	if err != nil {
		return err
	}
	keys, err := app.LoadKeys(c.keyFile, false)
	if err != nil {
		return &app.Error{Kind: app.KindUnavailable, Message: err.Error()}
	}
	set, err := store.CheckBackup(ctx, path)
	if err != nil {
		return err
	}
	if got := app.RingIDOf(set); got != keys.RingID() {
		return app.Errorf(app.KindInvalid, "the backup %s was made under another key ring (%s, this key file has %s): its labels would not verify; restore it with the key file it was made with", path, got, keys.RingID())
	}
	// Every desk shares the key ring: only the desk the backup names tells
	// another desk's backup, which would make two desks of one (issuing
	// the same serials, each other's offline redemptions lost).
	backupDesk, err := store.DeskOf(ctx, path, true)
	if err != nil {
		return err
	}
	if _, err := os.Stat(c.db); err == nil {
		thisDesk, err := store.DeskOf(ctx, c.db, false)
		if err != nil {
			return err
		}
		if thisDesk.Other(backupDesk) {
			return app.Errorf(app.KindInvalid, "the backup %s is of desk %s, and this is desk %s: restoring another desk's backup here would make two desks of one, issuing the same label numbers. Restore a backup this desk made; a new desk is set up with 'qrdesk init' and 'qrdesk sync' with its own token",
				path, backupDesk, thisDesk)
		}
	}
	saved, err := store.Restore(ctx, path, c.db)
	if err != nil {
		return err
	}
	return output(env.Stdout, c.json, map[string]string{"restored": path, "previous": saved}, func(w io.Writer) {
		fmt.Fprintf(w, "restored %s into %s; the database before the restore is kept as %s\n", path, c.db, saved)
	})
}
