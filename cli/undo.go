package cli

import (
	"context"
	"fmt"
	"io"

	"qrdesk/app"
)

func init() {
	register("undo", "put a redeemed label back to unused, within the undo window (a reason is required)", runUndo)
}

func runUndo(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "undo", "CODE | --refused")
	reason := fs.String("reason", "", "why the redemption is undone (required), e.g. \"scanned the wrong parcel\"")
	operator := fs.String("operator", "", "the supervisor who undoes it (required)")
	refused := fs.Bool("refused", false, "list the undos the server refused instead")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *refused {
		if len(pos) > 0 {
			return usagef("--refused lists the refused undos and takes no CODE")
		}
		return listRefusedUndos(ctx, env, c)
	}
	if len(pos) != 1 {
		return usagef("give exactly one CODE")
	}
	code := pos[0]
	if *reason == "" {
		return usagef("--reason is required, e.g. --reason \"scanned the wrong parcel\"")
	}
	if *operator == "" {
		return usagef("--operator is required: the supervisor who undoes the redemption")
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	by, err := s.operator(ctx, *operator)
	if err != nil {
		return err
	}
	u, err := s.svc.UndoRedemption(ctx, app.UndoRequest{Code: code, Reason: *reason, Operator: by})
	if err != nil {
		return labelRefused(env, "undo", err)
	}
	return s.output(u, func(w io.Writer) {
		fmt.Fprintf(w, "%s: now %s (redemption of %s by %s undone by %s: %s)\n", u.Code, u.Status, app.FormatTime(u.RedeemedAt), u.RedeemedBy, u.Operator, u.Reason)
		switch u.Server {
		case "undone":
			fmt.Fprintln(w, "server: undone at the server too")
		case "waiting":
			fmt.Fprintln(w, "server: not reached; the undo goes with the next sync")
		case app.UndoWaitsUpgrade:
			fmt.Fprintln(w, "server: answered, but it is older than this desk and does not know undo; the undo waits here and goes once qrdesk-server is upgraded")
		case "refused":
			fmt.Fprintf(w, "server: refused: %s\n", u.ServerReason)
		}
	})
}

// printRefusedUndos lists undos the server refused ('qrdesk conflicts' and
// 'qrdesk undo --refused').
func printRefusedUndos(w io.Writer, list []app.Undo) {
	if len(list) == 0 {
		return
	}
	fmt.Fprintln(w, "undos refused by the server (the labels are used again here):")
	for _, u := range list {
		fmt.Fprintf(w, "%s\n  undone at %s by %s (%s): %s\n", u.Code, app.FormatTime(u.At), u.Operator, u.Reason, u.ServerReason)
	}
}

func listRefusedUndos(ctx context.Context, env *Env, c *common) error {
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	list, err := s.svc.RefusedUndos(ctx)
	if err != nil {
		return err
	}
	return s.output(list, func(w io.Writer) {
		if len(list) == 0 {
			fmt.Fprintln(w, "no undo was refused by the server")
		}
		printRefusedUndos(w, list)
	})
}
