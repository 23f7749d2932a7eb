// Package cli is the qrdesk command line: one file per subcommand. It knows
// nothing of Fyne; main passes the GUI in as a function.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"qrdesk/app"
	"qrdesk/internal/deskdir"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitRefused = 1 // a code was refused (redeem, check)
	ExitUsage   = 2
	ExitFailure = 3
)

// GUIOptions are passed to the GUI launcher.
type GUIOptions struct {
	DB      string
	KeyFile string
	Screen  string
	Desk    bool // desk mode: the Scan screen only until a supervisor signs in
}

// Env is the outside world of one command run.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Now is the clock of the label dates, "today", expiry and every time
	// the command records; nil means time.Now.
	Now func() time.Time
	// GUI opens the window; nil in builds without a GUI.
	GUI func(ctx context.Context, opts GUIOptions) error
	// Alert shows a message in a dialog of the system's own, for what stops
	// the window before it is up (Fyne may not be running): on Windows a
	// MessageBox. nil: no dialog (the failure still goes to qrdesk.log).
	Alert func(title, text string)
}

// now reads the command's clock.
func (e *Env) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, env *Env, args []string) error
}

var commands = map[string]command{}

func register(name, summary string, run func(ctx context.Context, env *Env, args []string) error) {
	commands[name] = command{summary: summary, run: run}
}

// usageError is a mistake in the command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// refusedError means the command worked but the code was refused (exit 1);
// the verdict was already printed.
type refusedError struct{}

func (refusedError) Error() string { return "refused" }

// labelRefused turns a label the rules refused (used, expired, unknown,
// another desk's, too late) into the refusal's sentence on stderr and a
// refusedError; any other error is returned as it is.
func labelRefused(env *Env, command string, err error) error {
	if k := app.KindOf(err); err != nil && (k == app.KindConflict || k == app.KindNotFound) {
		fmt.Fprintf(env.Stderr, "qrdesk %s: %s\n", command, oneLine(app.ErrorMessage(err)))
		return refusedError{}
	}
	return err
}

const usage = `qrdesk — one-time QR labels for a warehouse print station

Usage: qrdesk [command] [flags]

With no command qrdesk opens the window (same as 'qrdesk gui').

Commands:
%s
Every command takes --db PATH (env QRDESK_DB), --key-file PATH (env
QRDESK_KEY_FILE) and --json. 'qrdesk COMMAND --help' shows a command's flags.
Exit codes: 0 ok, 1 code refused, 2 usage error, 3 other failure.
`

func printUsage(w io.Writer) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "  %-13s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, usage, b.String())
}

// Main runs one command line (args without the program name) and returns
// the exit code. Errors are printed as one line on stderr.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	name := "gui"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	} else if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		name = "help"
	} else if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		name, args = "version", args[1:]
	}
	if name == "help" {
		printUsage(env.Stdout)
		return ExitOK
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(env.Stderr, "qrdesk: unknown command %q; run 'qrdesk help' for the list\n", name)
		return ExitUsage
	}
	err := moveRoamingDesk(&env)
	if err != nil && name == "gui" {
		startFailure(&env, deskdir.Roaming(env.Getenv), err) // where the desk still is
	}
	if err == nil {
		err = cmd.run(ctx, &env, args)
	}
	var ue *usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.As(err, &ue):
		fmt.Fprintf(env.Stderr, "qrdesk %s: %s (see 'qrdesk %s --help')\n", name, ue.msg, name)
		return ExitUsage
	case errors.As(err, new(refusedError)):
		return ExitRefused
	}
	fmt.Fprintf(env.Stderr, "qrdesk %s: %s\n", name, oneLine(app.ErrorMessage(err)))
	if app.KindOf(err) == app.KindInvalid {
		return ExitUsage
	}
	return ExitFailure
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
