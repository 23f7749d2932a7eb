// Command qrdesk-server is the central server stations sync with. Pure Go
// (CGO_ENABLED=0), so it runs on a headless server or in a container.
//
//	qrdesk-server [serve] --db PATH --listen ADDR [--tls-cert F --tls-key F] [--metrics-listen ADDR]
//	              [--replica-url postgres://… [--replica-max-lag 5s]]
//	qrdesk-server station add NAME --letter L [--site S] | station renew NAME |
//	              station letter NAME L | station site NAME S | station revoke NAME | station list
//	qrdesk-server site add NAME | site rename OLD NEW | site list | site offline [refuse|decide]
//	qrdesk-server ring show | ring reset
//	qrdesk-server admin add NAME [--sites "A,B"] | admin sites NAME ["A,B" | --all-sites] |
//	              admin reset NAME | admin remove NAME | admin list
//	qrdesk-server report [--date YYYY-MM-DD]
//	qrdesk-server compact
//	qrdesk-server webhook add NAME URL | webhook list | webhook log NAME |
//	              webhook pause NAME | webhook resume NAME | webhook remove NAME
//	qrdesk-server export --since CURSOR [--limit N]
//	qrdesk-server backup -o FILE | backup --failed REASON | restore FILE | restore --epoch-only
//	qrdesk-server version | --version
//
// One file per subcommand, each with its own flags (command.flags).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"qrdesk/central"
	"qrdesk/serverdb"
)

// clock is the server's time: station enrolment, every event it records,
// online redemptions and expiry, and the report's "today". Only a build for
// the CLI tests (tag qrdesk_testclock) replaces it.
var clock = time.Now

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, clock))
}

// command is one subcommand: what --help says of it, and its flags.
type command struct {
	summary string
	usage   string // its forms, printed by --help and by a mistake in them
	// flags declares the command's own flags on fs (--db is everyone's)
	// and returns what runs with them once they are parsed.
	flags func(fs *flag.FlagSet) action
}

// action runs a command whose flags are parsed.
type action func(ctx context.Context, inv *invocation) error

// commandNames is the commands in the order help lists them.
var commandNames = []string{"serve", "station", "site", "admin", "operators", "ring", "report", "export", "webhook", "compact", "backup", "restore", "version"}

// commands is every command by name, one file each.
var commands = map[string]command{
	"serve": serveCommand, "station": stationCommand, "site": siteCommand, "admin": adminCommand,
	"operators": operatorsCommand, "ring": ringCommand, "report": reportCommand, "compact": compactCommand, "export": exportCommand, "webhook": webhookCommand,
	"backup": backupCommand, "restore": restoreCommand, "version": versionCommand,
}

// invocation is one run of a command: its name, the names after it, its
// parsed flags, the database it names, where it writes and its clock.
type invocation struct {
	name           string
	pos            []string
	fs             *flag.FlagSet
	db             string
	stdout, stderr io.Writer
	now            func() time.Time
}

// run runs one command line with the clock now and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, now func() time.Time) int {
	if len(args) > 0 && (args[0] == "version" || args[0] == "--version" || args[0] == "-version") {
		printVersion(stdout)
		return 0
	}
	if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
		printHelp(stdout)
		return 0
	}
	name, args, named := splitCommand(args)
	cmd, ok := commands[name]
	if !ok {
		return unknownCommand(name, stderr)
	}
	inv := &invocation{name: name, stdout: stdout, stderr: stderr, now: now}
	inv.fs = newFlagSet(name, &inv.db)
	act := cmd.flags(inv.fs)
	var err error
	if inv.pos, err = parseInterleaved(inv.fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(stdout, name, cmd, inv.fs)
			return 0
		}
		fmt.Fprintf(stderr, "qrdesk-server %s: %v ('qrdesk-server %s --help' lists its flags)\n", name, err, name)
		return 2
	}
	if !named && len(inv.pos) > 0 {
		// Flags first and no command they belong to ('--listen A frob'):
		// the name is no command, not something for serve to ignore.
		return unknownCommand(inv.pos[0], stderr)
	}
	return exitCode(act(ctx, inv), name, stderr)
}

// splitCommand finds the command: the first argument, or after flags
// ('--db F station add NAME') the first command name those flags are the
// command's own flags before, else the first command name there is (its
// flags then say what is wrong). No name: serve.
func splitCommand(args []string) (name string, rest []string, named bool) {
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		return args[0], args[1:], true
	}
	at := -1
	for i, a := range args {
		cmd, ok := commands[a]
		if !ok {
			continue
		}
		var db string
		fs := newFlagSet(a, &db)
		cmd.flags(fs)
		if fs.Parse(args[:i]) == nil && fs.NArg() == 0 {
			at = i
			break
		}
		if at < 0 {
			at = i
		}
	}
	if at < 0 {
		return "serve", args, false
	}
	return args[at], append(args[:at:at], args[at+1:]...), true
}

// newFlagSet is a command's flag set with --db, every command's flag but
// version's. It prints nothing itself: run says what is wrong, and
// --help prints the command's forms and flags (printCommandHelp).
func newFlagSet(name string, db *string) *flag.FlagSet {
	fs := flag.NewFlagSet("qrdesk-server "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if name != "version" {
		fs.StringVar(db, "db", envOr("QRDESK_SERVER_DB", "qrdesk-server.db"), "database: a SQLite file, or postgres://… (env QRDESK_SERVER_DB)")
	}
	return fs
}

// printCommandHelp is 'qrdesk-server COMMAND --help': its forms, its flags.
func printCommandHelp(out io.Writer, name string, cmd command, fs *flag.FlagSet) {
	fmt.Fprintf(out, "qrdesk-server %s: %s\n\n%s\n\nflags:\n", name, cmd.summary, strings.TrimPrefix(cmd.usage, "say one of:\n"))
	fs.SetOutput(out)
	fs.PrintDefaults()
}

// parseInterleaved parses flags before and after the names ('station add
// NAME --db F') and returns the names.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
}

// printHelp lists the commands ('qrdesk-server help', --help).
func printHelp(out io.Writer) {
	fmt.Fprintln(out, "qrdesk-server — the central server the desks sync with\n\nUsage: qrdesk-server [command] [flags] (no command: serve)\n\nCommands:")
	for _, n := range commandNames {
		fmt.Fprintf(out, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(out, "\n'qrdesk-server COMMAND --help' shows a command's forms and flags.\nExit codes: 0 ok, 2 usage error or bad input, 3 other failure.")
}

func unknownCommand(name string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "qrdesk-server: unknown command %q: use serve, station, site, admin, operators, ring, report, compact, backup, restore or version\n", name)
	return 2
}

// open opens the command's database. mayCreate: a command that sets one up
// (serve, 'station add', 'admin add', 'site add'); every other refuses a
// mistyped --db, or a report would come out of a new, empty database and
// say "no conflicts".
func (inv *invocation) open(ctx context.Context, mayCreate bool) (*serverdb.DB, error) {
	if err := checkDBPath(inv.db); err != nil {
		return nil, err
	}
	if !mayCreate && !serverdb.IsPostgres(inv.db) {
		if _, err := os.Stat(inv.db); err != nil {
			return nil, usageErr(fmt.Sprintf("no server database at %s: give the server's --db (or QRDESK_SERVER_DB)", inv.db))
		}
	}
	st, err := serverdb.Open(ctx, inv.db)
	if err != nil {
		return nil, &openError{err}
	}
	return st, nil
}

// checkDBPath refuses a --db that is no SQLite file before it is opened:
// a folder (SQLite's "unable to open database file" sent the operator to
// check a folder that was fine), or PostgreSQL's key=value settings,
// which would become a new, empty SQLite file named after them, password
// and all. The settings are not repeated: they may hold a password.
func checkDBPath(db string) error {
	if serverdb.IsPostgres(db) {
		return nil
	}
	if err := serverdb.CheckNotOtherURL(db); err != nil {
		return usageErr(err.Error())
	}
	if strings.TrimSpace(db) == "" {
		// SQLite would open a private, temporary database, lost at exit.
		return usageErr("--db is empty: give the server database file or postgres:// URL (or unset an empty QRDESK_SERVER_DB)")
	}
	for dir := filepath.Dir(db); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
			return usageErr(fmt.Sprintf("--db %s: %s is a file, not a folder: give the server database's own path", db, dir))
		}
	}
	if fi, err := os.Stat(db); err == nil && fi.IsDir() {
		return usageErr(fmt.Sprintf("--db %s is a folder: give the server database file, e.g. %s", db, filepath.Join(db, "qrdesk-server.db")))
	}
	for _, field := range strings.Fields(db) {
		key, _, ok := strings.Cut(field, "=")
		switch key {
		case "host", "hostaddr", "port", "dbname", "user", "password", "sslmode":
			if ok {
				return usageErr("--db reads as PostgreSQL key=value settings (host=… dbname=…), which the server does not take: give them as a URL, postgres://USER:PASSWORD@HOST:5432/DBNAME")
			}
		}
	}
	return nil
}

// withDB runs f on the command's database (open), closed after.
func (inv *invocation) withDB(ctx context.Context, mayCreate bool, f func(st *serverdb.DB) error) error {
	st, err := inv.open(ctx, mayCreate)
	if err != nil {
		return err
	}
	defer st.Close()
	return f(st)
}

// adding reports whether the command's names start with add: setting up.
func (inv *invocation) adding() bool { return len(inv.pos) > 0 && inv.pos[0] == "add" }

// openError is a database that would not open (exit 3, said without the
// command's name).
type openError struct{ err error }

func (e *openError) Error() string { return e.err.Error() }
func (e *openError) Unwrap() error { return e.err }

// exitCode prints err and returns the exit code: 0, 2 for a usage error or
// bad input, 3 for any other failure.
func exitCode(err error, cmd string, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var oe *openError
	if errors.As(err, &oe) {
		fmt.Fprintf(stderr, "qrdesk-server: %v\n", err)
		return 3
	}
	fmt.Fprintf(stderr, "qrdesk-server %s: %v\n", cmd, err)
	var ue *usageError
	var br *central.BadRequest
	var ns *central.NoSite
	if errors.As(err, &ue) || errors.As(err, &br) || errors.As(err, &ns) || errors.Is(err, central.ErrSiteExists) {
		return 2
	}
	return 3
}

// usageError is a mistake in the command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErr(msg string) error { return &usageError{msg} }

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
