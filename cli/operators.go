package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"

	"qrdesk/app"
	"qrdesk/internal/columns"
)

func init() {
	register("operators", "the desk's operators and supervisors: add, list, remove, set-pin, renew-badge", runOperators)
}

const operatorsUsage = `Usage:
  qrdesk operators add NAME [--supervisor]   the PIN is read from the terminal (not shown) or one line of standard input
  qrdesk operators list [--all]              --all shows removed operators too
  qrdesk operators remove NAME               their badge and PIN stop working; their history stays
  qrdesk operators set-pin NAME              a new PIN (a forgotten one), read as for add
  qrdesk operators renew-badge NAME          cancel a lost badge; print the new one with 'qrdesk print --badges'`

func runOperators(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(env.Stderr, operatorsUsage)
			return nil
		}
		return usagef("say what to do: add, list, remove, set-pin or renew-badge")
	}
	sub, args := args[0], args[1:]
	fs, c := newFlags(env, "operators "+sub, "")
	fs.Usage = func() { fmt.Fprintln(env.Stderr, operatorsUsage) }
	supervisor := fs.Bool("supervisor", false, "the operator may disable and enable codes, change settings, reprint and undo in the window")
	all := fs.Bool("all", false, "list removed operators too")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		if len(pos) > 0 {
			return usagef("unexpected argument %q", pos[0])
		}
	case "add", "remove", "set-pin", "renew-badge":
		if len(pos) != 1 {
			return usagef("give exactly one operator NAME (in quotes if it has spaces)")
		}
	default:
		return usagef("%q is not an operators command: use add, list, remove, set-pin or renew-badge", sub)
	}
	if *supervisor && sub != "add" {
		return usagef("--supervisor goes with 'operators add'")
	}
	if sub == "add" {
		if err := app.CheckOperatorName(pos[0]); err != nil {
			return &app.Error{Kind: app.KindInvalid, Message: err.Error()}
		}
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	staff := s.svc.Operators()
	by := operatorName(env, "")
	// On the deployment's staff list a change here goes to the server at
	// this desk's next sync, and to every desk at theirs.
	shared, err := staff.Shared(ctx)
	if err != nil {
		return err
	}
	switch sub {
	case "add":
		pin, err := readPIN(env, pos[0])
		if err != nil {
			return err
		}
		op, err := staff.Add(ctx, pos[0], pin, *supervisor, by)
		if err != nil {
			return err
		}
		return s.output(op, func(w io.Writer) {
			if shared {
				fmt.Fprintf(w, "added %s %s to the deployment's staff list: it goes to the server at this desk's next sync ('qrdesk sync'); then print their badge with 'qrdesk print --badges -o badges.pdf'\n", op.Role(), op.Name)
				return
			}
			fmt.Fprintf(w, "added %s %s; print their badge with 'qrdesk print --badges -o badges.pdf'\n", op.Role(), op.Name)
		})
	case "remove":
		op, err := staff.Remove(ctx, pos[0], by)
		if err != nil {
			return err
		}
		return s.output(op, func(w io.Writer) {
			if shared {
				fmt.Fprintf(w, "removed %s from the deployment's staff list: their badge and PIN no longer work here, and at every desk after this desk's next sync and theirs; the scans they made keep their name\n", op.Name)
				return
			}
			fmt.Fprintf(w, "removed %s: their badge and PIN no longer work; the scans they made keep their name\n", op.Name)
		})
	case "set-pin":
		// Before the PIN is typed: a mistyped name fails at once.
		if _, err := staff.Find(ctx, pos[0]); err != nil {
			return err
		}
		pin, err := readPIN(env, pos[0])
		if err != nil {
			return err
		}
		op, err := staff.SetPIN(ctx, pos[0], pin, by)
		if err != nil {
			return err
		}
		return s.output(op, func(w io.Writer) {
			if shared {
				fmt.Fprintf(w, "%s has a new PIN; the old one no longer works here, and at every desk after this desk's next sync and theirs\n", op.Name)
				return
			}
			fmt.Fprintf(w, "%s has a new PIN; the old one no longer works\n", op.Name)
		})
	case "renew-badge":
		op, err := staff.RenewBadge(ctx, pos[0], by)
		if err != nil {
			return err
		}
		return s.output(op, func(w io.Writer) {
			if shared {
				fmt.Fprintf(w, "%s's old badge no longer works here, and at every desk after this desk's next sync and theirs; after this desk's next sync print the new one with 'qrdesk print --badges -o badges.pdf'\n", op.Name)
				return
			}
			fmt.Fprintf(w, "%s's old badge no longer works; print the new one (badge %d) with 'qrdesk print --badges -o badges.pdf'\n", op.Name, op.BadgeVersion)
		})
	}
	ops, err := staff.List(ctx, *all)
	if err != nil {
		return err
	}
	if ops == nil {
		ops = []app.Operator{}
	}
	return s.output(ops, func(w io.Writer) {
		if shared {
			fmt.Fprintln(w, "the deployment's staff list (kept by the server: 'qrdesk-server operators', or a change here at the next sync)")
		}
		if len(ops) == 0 {
			fmt.Fprintln(w, "no operators yet: add one with 'qrdesk operators add NAME [--supervisor]'")
			return
		}
		rows := [][]string{{"NAME", "ROLE", "BADGE", "ADDED", "REMOVED"}}
		for _, op := range ops {
			removed := "-"
			if op.RemovedAt != 0 {
				removed = app.FormatTime(op.RemovedAt)
			}
			rows = append(rows, []string{op.Name, op.Role(), strconv.Itoa(op.BadgeVersion), app.FormatTime(op.CreatedAt), removed})
		}
		columns.Write(w, rows)
	})
}

// readPIN reads a new PIN: on a terminal twice, not shown; otherwise one
// line of standard input (never an argument: the command line is visible
// to every user of the machine and kept in shell histories).
func readPIN(env *Env, name string) (string, error) {
	f, isFile := env.Stdin.(*os.File)
	onTerminal := isFile && term.IsTerminal(int(f.Fd()))
	pin, err := readSecretLine(env, fmt.Sprintf("PIN for %s (%d to %d digits, not shown): ", name, app.MinPINDigits, app.MaxPINDigits))
	if err != nil {
		return "", fmt.Errorf("cannot read the PIN: %w", err)
	}
	pin = strings.TrimRight(pin, "\r\n")
	if err := app.CheckPIN(pin); err != nil {
		return "", &app.Error{Kind: app.KindInvalid, Message: err.Error()}
	}
	if onTerminal {
		again, err := readSecretLine(env, "the same PIN again: ")
		if err != nil {
			return "", fmt.Errorf("cannot read the PIN: %w", err)
		}
		if strings.TrimRight(again, "\r\n") != pin {
			return "", app.Errorf(app.KindInvalid, "the two PINs differ: nothing was saved; run the command again")
		}
	}
	return pin, nil
}
