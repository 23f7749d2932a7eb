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

// runOperators parses, checks, opens the desk and runs one operators
// command.
func runOperators(ctx context.Context, env *Env, args []string) error {
	call, err := parseOperators(env, args)
	if err != nil || call == nil {
		return err
	}
	s, err := open(ctx, env, call.common)
	if err != nil {
		return err
	}
	defer s.Close()
	st := &staffSession{session: s, staff: s.svc.Operators(), by: operatorName(env, "")}
	// On the deployment's staff list a change here goes to the server at
	// this desk's next sync, and to every desk at theirs.
	if st.shared, err = st.staff.Shared(ctx); err != nil {
		return err
	}
	return operatorsActions[call.sub](ctx, env, st, call)
}

// operatorsCall is one 'qrdesk operators' command line, parsed and checked.
type operatorsCall struct {
	sub        string // add, list, remove, set-pin, renew-badge
	name       string // the operator (every command but list)
	supervisor bool   // add: a supervisor
	all        bool   // list: removed operators too
	common     *common
}

// parseOperators reads and checks the command line; nil and no error:
// only --help was asked for (printed).
func parseOperators(env *Env, args []string) (*operatorsCall, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(env.Stderr, operatorsUsage)
			return nil, nil
		}
		return nil, usagef("say what to do: add, list, remove, set-pin or renew-badge")
	}
	call := &operatorsCall{sub: args[0]}
	fs, c := newFlags(env, "operators "+call.sub, "")
	call.common = c
	fs.Usage = func() { fmt.Fprintln(env.Stderr, operatorsUsage) }
	fs.BoolVar(&call.supervisor, "supervisor", false, "the operator may disable and enable codes, change settings, reprint and undo in the window")
	fs.BoolVar(&call.all, "all", false, "list removed operators too")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return nil, err
	}
	if err := call.check(pos); err != nil {
		return nil, err
	}
	return call, nil
}

// check checks the names after the command and which flags go with it.
func (call *operatorsCall) check(pos []string) error {
	switch call.sub {
	case "list":
		if len(pos) > 0 {
			return usagef("unexpected argument %q", pos[0])
		}
	case "add", "remove", "set-pin", "renew-badge":
		if len(pos) != 1 {
			return usagef("give exactly one operator NAME (in quotes if it has spaces)")
		}
		call.name = pos[0]
	default:
		return usagef("%q is not an operators command: use add, list, remove, set-pin or renew-badge", call.sub)
	}
	if call.supervisor && call.sub != "add" {
		return usagef("--supervisor goes with 'operators add'")
	}
	if call.sub == "add" {
		if err := app.CheckNewOperatorName(call.name); err != nil {
			return &app.Error{Kind: app.KindInvalid, Message: err.Error()}
		}
	}
	return nil
}

// staffSession is an open desk's staff list, who changes it, and whether
// it is the deployment's (kept by the server) or this desk's own.
type staffSession struct {
	*session
	staff  *app.Operators
	by     string
	shared bool
}

// say prints the shared or the desk-only sentence.
func (st *staffSession) say(shared, alone string, args ...any) func(w io.Writer) {
	return func(w io.Writer) {
		if st.shared {
			fmt.Fprintf(w, shared, args...)
			return
		}
		fmt.Fprintf(w, alone, args...)
	}
}

// operatorsActions is what each operators command does, its line checked.
var operatorsActions = map[string]func(ctx context.Context, env *Env, st *staffSession, call *operatorsCall) error{
	"add":         operatorsAdd,
	"list":        operatorsList,
	"remove":      operatorsRemove,
	"set-pin":     operatorsSetPIN,
	"renew-badge": operatorsRenewBadge,
}

func operatorsAdd(ctx context.Context, env *Env, st *staffSession, call *operatorsCall) error {
	pin, err := readPIN(env, call.name)
	if err != nil {
		return err
	}
	op, err := st.staff.Add(ctx, call.name, pin, call.supervisor, st.by)
	if err != nil {
		return err
	}
	return st.output(op, st.say(
		"added %s %s to the deployment's staff list: it goes to the server at this desk's next sync ('qrdesk sync'); then print their badge with 'qrdesk print --badges -o badges.pdf'\n",
		"added %s %s; print their badge with 'qrdesk print --badges -o badges.pdf'\n", op.Role(), op.Name))
}

func operatorsRemove(ctx context.Context, _ *Env, st *staffSession, call *operatorsCall) error {
	op, err := st.staff.Remove(ctx, call.name, st.by)
	if err != nil {
		return err
	}
	return st.output(op, st.say(
		"removed %s from the deployment's staff list: their badge and PIN no longer work here, and at every desk after this desk's next sync and theirs; the scans they made keep their name\n",
		"removed %s: their badge and PIN no longer work; the scans they made keep their name\n", op.Name))
}

func operatorsSetPIN(ctx context.Context, env *Env, st *staffSession, call *operatorsCall) error {
	// Before the PIN is typed: a mistyped name fails at once.
	if _, err := st.staff.Find(ctx, call.name); err != nil {
		return err
	}
	pin, err := readPIN(env, call.name)
	if err != nil {
		return err
	}
	op, err := st.staff.SetPIN(ctx, call.name, pin, st.by)
	if err != nil {
		return err
	}
	return st.output(op, st.say(
		"%s has a new PIN; the old one no longer works here, and at every desk after this desk's next sync and theirs\n",
		"%s has a new PIN; the old one no longer works\n", op.Name))
}

func operatorsRenewBadge(ctx context.Context, _ *Env, st *staffSession, call *operatorsCall) error {
	op, err := st.staff.RenewBadge(ctx, call.name, st.by)
	if err != nil {
		return err
	}
	if st.shared {
		return st.output(op, func(w io.Writer) {
			fmt.Fprintf(w, "%s's old badge no longer works here, and at every desk after this desk's next sync and theirs; after this desk's next sync print the new one with 'qrdesk print --badges -o badges.pdf'\n", op.Name)
		})
	}
	return st.output(op, func(w io.Writer) {
		fmt.Fprintf(w, "%s's old badge no longer works; print the new one (badge %d) with 'qrdesk print --badges -o badges.pdf'\n", op.Name, op.BadgeVersion)
	})
}

func operatorsList(ctx context.Context, _ *Env, st *staffSession, call *operatorsCall) error {
	ops, err := st.staff.List(ctx, call.all)
	if err != nil {
		return err
	}
	if ops == nil {
		ops = []app.Operator{}
	}
	return st.output(ops, func(w io.Writer) {
		if st.shared {
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
