package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/columns"
	"qrdesk/protocol"
	"qrdesk/serverdb"
)

const operatorsUsage = `say one of:
  operators list [--all]              the deployment's staff list (--all: removed operators too)
  operators add NAME [--supervisor]   the PIN is read from the terminal (not shown) or one line of standard input
  operators remove NAME               their badge and PIN stop working at every desk after its next sync
  operators renew-badge NAME          cancel a lost badge; print the new one at any desk after its next sync
  operators set-pin NAME              a new PIN (a forgotten one), read as for add
  operators desks                     what the desks may change of the staff list
  operators desks pickers|all|none    pickers (the default): desks add pickers and set their PINs,
                                      renew badges and remove anyone; a supervisor is added, and
                                      given a new PIN, here or on the dashboard (a desk's token
                                      alone cannot show who made the change)
                                      all: every desk's change is taken; none: no desk's change`

var operatorsCommand = command{
	summary: "the deployment's staff list: the operators who sign in at every desk",
	usage:   operatorsUsage,
	flags: func(fs *flag.FlagSet) action {
		supervisor := fs.Bool("supervisor", false, "operators add: a supervisor (may disable and enable labels, change settings, reprint and undo at the desks)")
		all := fs.Bool("all", false, "operators list: removed operators too")
		return func(ctx context.Context, inv *invocation) error {
			return inv.withDB(ctx, false, func(st *serverdb.DB) error {
				return operators(ctx, st, inv.now, inv.pos, *supervisor, *all, inv.stdout)
			})
		}
	},
}

// stdin is where 'operators add' and 'set-pin' read the PIN (tests set it).
var stdin io.Reader = os.Stdin

// operators manages the deployment's staff list: the operators who sign
// in at every desk that syncs with this server. A PIN is hashed here
// (argon2id, as a desk does) and only the hash is stored and sent.
func operators(ctx context.Context, st *serverdb.DB, now func() time.Time, args []string, supervisor, all bool, out io.Writer) error {
	if len(args) == 0 {
		return usageErr(operatorsUsage)
	}
	switch {
	case args[0] == "list" && len(args) == 1:
		list, err := st.Staff(ctx, all)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintln(out, "no operators in the staff list yet: add one with 'qrdesk-server operators add NAME [--supervisor]'")
			return nil
		}
		rows := [][]string{{"NAME", "ROLE", "BADGE", "ADDED", "REMOVED"}}
		for _, m := range list {
			removed := "-"
			if m.RemovedAt != 0 {
				removed = app.FormatTime(m.RemovedAt)
			}
			rows = append(rows, []string{m.Name, role(m), strconv.Itoa(m.BadgeVersion), app.FormatTime(m.CreatedAt), removed})
		}
		columns.Write(out, rows)
		return nil
	case args[0] == "desks":
		return deskStaff(ctx, st, now, args[1:], out)
	case len(args) != 2:
		return usageErr(operatorsUsage)
	}
	if supervisor && args[0] != "add" {
		return usageErr("--supervisor goes with 'operators add'")
	}
	ch := protocol.StaffChange{Action: args[0], Name: args[1], Supervisor: supervisor}
	switch ch.Action {
	case protocol.StaffAdd, protocol.StaffSetPIN:
		check := app.CheckOperatorName
		if ch.Action == protocol.StaffAdd {
			check, ch.Name = app.CheckNewOperatorName, app.ComposedName(ch.Name)
		}
		if err := check(ch.Name); err != nil {
			return &central.BadRequest{Reason: err.Error()}
		}
		pin, err := readPIN(ch.Name)
		if err != nil {
			return err
		}
		if ch.PINHash, err = app.HashPIN(pin); err != nil {
			return fmt.Errorf("cannot protect the PIN: %w", err)
		}
	case protocol.StaffRemove, protocol.StaffRenewBadge:
	default:
		return usageErr(operatorsUsage)
	}
	m, err := st.ChangeStaff(ctx, ch, "", now().Unix())
	var like *app.LooksLikeError
	if errors.Is(err, central.ErrStaffExists) || errors.Is(err, central.ErrNoStaff) || errors.As(err, &like) {
		return &central.BadRequest{Reason: fmt.Sprintf("%s: %v", ch.Name, err)}
	}
	if err != nil {
		return err
	}
	switch ch.Action {
	case protocol.StaffAdd:
		fmt.Fprintf(out, "added %s %s to the staff list; every desk has them after its next sync: print their badge there with 'qrdesk print --badges -o badges.pdf'\n", role(m), m.Name)
	case protocol.StaffRemove:
		fmt.Fprintf(out, "removed %s: their badge and PIN stop working at every desk after its next sync; the scans they made keep their name\n", m.Name)
	case protocol.StaffRenewBadge:
		fmt.Fprintf(out, "%s's old badge stops working at every desk after its next sync; print the new one (badge %d) at a desk with 'qrdesk print --badges -o badges.pdf'\n", m.Name, m.BadgeVersion)
	case protocol.StaffSetPIN:
		fmt.Fprintf(out, "%s has a new PIN at every desk after its next sync; the old one no longer works there\n", m.Name)
	}
	return nil
}

// deskStaff shows or sets what the desks may change of the staff list
// (central.DeskStaffPickers, …).
func deskStaff(ctx context.Context, st *serverdb.DB, now func() time.Time, args []string, out io.Writer) error {
	switch len(args) {
	case 0:
		v, err := st.DeskStaff(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "staff changes from desks: %s (%s)\n", v, deskStaffWords[v])
		return nil
	case 1:
		if err := st.SetDeskStaff(ctx, args[0], "", now().Unix()); err != nil {
			return err
		}
		fmt.Fprintf(out, "staff changes from desks: %s (%s); decided so from the next event on\n", args[0], deskStaffWords[args[0]])
		return nil
	}
	return usageErr(operatorsUsage)
}

var deskStaffWords = map[string]string{
	central.DeskStaffPickers: "pickers added and their PINs set at the desks; supervisors added and their PINs set by an administrator",
	central.DeskStaffAll:     "every desk's change is taken on its token",
	central.DeskStaffNone:    "only an administrator changes the staff list",
}

func role(m protocol.StaffMember) string {
	if m.Supervisor {
		return "supervisor"
	}
	return "operator"
}

// readPIN reads a new PIN: on a terminal twice, not shown (the prompt on
// standard error); otherwise one line of standard input. Never an
// argument: a command line is visible to every user of the machine.
func readPIN(name string) (string, error) {
	prompt := fmt.Sprintf("PIN for %s (%d to %d digits, not shown): ", name, app.MinPINDigits, app.MaxPINDigits)
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		var pins [2]string
		for i, p := range []string{prompt, "the same PIN again: "} {
			fmt.Fprint(os.Stderr, p)
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(os.Stderr)
			if err != nil {
				return "", fmt.Errorf("cannot read the PIN: %w", err)
			}
			pins[i] = string(b)
			if i == 0 {
				if err := app.CheckPIN(pins[0]); err != nil {
					return "", &central.BadRequest{Reason: err.Error()}
				}
			}
		}
		if pins[0] != pins[1] {
			return "", central.Badf("the two PINs differ: nothing was saved; run the command again")
		}
		return pins[0], nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("cannot read the PIN: %w", err)
	}
	pin := strings.TrimRight(line, "\r\n")
	if err := app.CheckPIN(pin); err != nil {
		return "", &central.BadRequest{Reason: err.Error()}
	}
	return pin, nil
}
