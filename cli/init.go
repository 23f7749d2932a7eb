package cli

import (
	"context"
	"fmt"
	"io"
)

func init() {
	register("init", "create the database and the signing key (safe to run again)", runInit)
}

func runInit(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "init", "")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	s, err := openCreating(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	result := map[string]string{"db": c.db, "key_file": c.keyFile, "key_ring": s.svc.Keys.RingID()}
	return s.output(result, func(w io.Writer) {
		fmt.Fprintf(w, "database: %s\nkey file: %s (key ring %s)\nready: run 'qrdesk settings' to set the prefix and station, then 'qrdesk issue'\n",
			c.db, c.keyFile, s.svc.Keys.RingID())
	})
}
