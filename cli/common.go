package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"qrdesk/app"
	"qrdesk/internal/deskdir"
	"qrdesk/printing"
	"qrdesk/store"
)

// common are the flags every command takes.
type common struct {
	db      string
	keyFile string
	json    bool
	// syncSetUp: sync.json was written by this command, a moment ago
	// ('qrdesk sync --server'), so it says nothing of a lost database.
	syncSetUp bool
}

// DataDir is where qrdesk keeps its files by default: QRDESK_HOME, else
// the machine's folder for the desk (internal/deskdir: on Windows
// %ProgramData%\qrdesk, one desk per PC).
func DataDir(getenv func(string) string) string { return deskdir.Default(getenv) }

// newFlags makes a command's flag set with the common flags.
func newFlags(env *Env, name, args string) (*flag.FlagSet, *common) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	c := &common{}
	dir := DataDir(env.Getenv)
	fs.StringVar(&c.db, "db", firstNonEmpty(env.Getenv("QRDESK_DB"), filepath.Join(dir, "qrdesk.db")), "database file")
	fs.StringVar(&c.keyFile, "key-file", firstNonEmpty(env.Getenv("QRDESK_KEY_FILE"), filepath.Join(dir, "qrdesk.key")), "signing key file (mode 0600)")
	fs.BoolVar(&c.json, "json", false, "machine-readable JSON output")
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: qrdesk %s [flags] %s\n\nFlags:\n", name, args)
		fs.PrintDefaults()
	}
	return fs, c
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// parse reads flags and positional arguments in any order.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, err
			}
			return nil, &usageError{strings.TrimPrefix(err.Error(), "flag provided but not defined: ")}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// session is an open database, key ring and service for one command.
type session struct {
	svc *app.Service
	db  *store.DB
	c   *common
	env *Env
}

func (s *session) Close() { s.db.Close() }

// open loads the key file and the database. A missing key file is refused
// before anything is written: only set-up creates one (see openCreating).
func open(ctx context.Context, env *Env, c *common) (*session, error) {
	return openSession(ctx, env, c, false)
}

// openCreating is open for set-up ('qrdesk init', the window's first run):
// a missing key file is created with a new key ring.
func openCreating(ctx context.Context, env *Env, c *common) (*session, error) {
	return openSession(ctx, env, c, true)
}

func openSession(ctx context.Context, env *Env, c *common, createKey bool) (*session, error) {
	if err := lostDatabase(c); err != nil {
		return nil, err
	}
	// The folder a new desk is made in is the desk's own: on Windows a
	// protected DACL (the user, SYSTEM, Administrators), mode 0700 on Unix.
	if err := deskdir.Prepare(filepath.Dir(c.db)); err != nil {
		return nil, &app.Error{Kind: app.KindUnavailable, Message: fmt.Sprintf("cannot make the desk's folder %s: %v", filepath.Dir(c.db), err)}
	}
	keys, err := app.LoadKeysAt(c.keyFile, createKey, env.now())
	if err != nil {
		return nil, keyFileError(c.keyFile, err)
	}
	db, err := store.Open(ctx, c.db)
	if err != nil {
		return nil, err
	}
	db.UseClock(env.now)
	logFile := store.NewLogFile(filepath.Join(filepath.Dir(c.db), "qrdesk.log"), 10<<20)
	log := slog.New(slog.NewJSONHandler(logFile, nil))
	svc := app.NewService(db, keys, log)
	svc.Now = env.now
	svc.Unprintable = printing.Unprintable // refs and titles the label fonts cannot print are refused
	if err := svc.BindKeyRing(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if svc.Remote, err = remoteFor(c); err != nil {
		db.Close()
		return nil, err
	}
	return &session{svc: svc, db: db, c: c, env: env}, nil
}

// keyFileError is what a command or the window says when the key file
// cannot be loaded. A folder this login may not open is another login's
// desk (on Windows the desk's folder in ProgramData is readable by the user
// who set it up only): said so, rather than "access is denied".
func keyFileError(path string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		other := &otherLoginError{dir: filepath.Dir(path), err: err}
		return &app.Error{Kind: app.KindUnavailable, Err: other, Message: other.text("en")}
	}
	return &app.Error{Kind: app.KindUnavailable, Message: err.Error()}
}

// lostDatabase refuses a desk whose database is missing beside its key
// file and sync settings: the desk was set up and synced, and a new empty
// database would lose without a word what it did offline (a waiting
// redemption) and issue its labels' numbers again. It is restored from a
// backup, never re-created silently.
func lostDatabase(c *common) error {
	if c.syncSetUp {
		return nil
	}
	if _, err := os.Stat(c.db); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	for _, f := range []string{c.keyFile, syncConfigPath(c)} {
		if _, err := os.Stat(f); err != nil {
			return nil
		}
	}
	return app.Errorf(app.KindUnavailable, "the database %s is missing, but this desk was set up (its key file %s and sync settings %s are there): a new database would lose what the desk did offline and issue its label numbers again. Restore the desk's latest backup with 'qrdesk restore FILE' (then sync); to start this desk over on purpose, move %s away, run 'qrdesk init', then 'qrdesk sync --server URL --token-file FILE' before issuing anything (the server tells the new database which label numbers this desk printed)",
		c.db, c.keyFile, syncConfigPath(c), syncConfigPath(c))
}

// output prints v as JSON with --json, else runs human.
func (s *session) output(v any, human func(w io.Writer)) error {
	return output(s.env.Stdout, s.c.json, v, human)
}

func output(w io.Writer, asJSON bool, v any, human func(w io.Writer)) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	human(w)
	return nil
}

// operatorName is who is at the station: --operator, then $QRDESK_OPERATOR,
// then the login name.
func operatorName(env *Env, flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if o := env.Getenv("QRDESK_OPERATOR"); o != "" {
		return o
	}
	return firstNonEmpty(env.Getenv("USER"), "clerk")
}

// operator is who a command records (operatorName) where the desk keeps
// a staff list: the name must be a current operator's (any case; the
// list's spelling is recorded), or the command is refused before it does
// anything. A name the list does not hold used to be recorded as given,
// so the history named someone nobody could check. A desk without
// operators records any name, as before.
func (s *session) operator(ctx context.Context, flagValue string) (string, error) {
	return s.svc.Operators().Recorded(ctx, operatorName(s.env, flagValue))
}

// parseNone parses a command line that takes flags only.
func parseNone(fs *flag.FlagSet, args []string) error {
	pos, err := parse(fs, args)
	if err == nil && len(pos) > 0 {
		err = usagef("unexpected argument %q", pos[0])
	}
	return err
}

// parseOne parses a command line that takes flags and one argument.
func parseOne(fs *flag.FlagSet, args []string, what string) (string, error) {
	pos, err := parse(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", usagef("give exactly one %s", what)
	}
	return pos[0], nil
}

func isFlagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// OpenService opens the key ring and database for a long-running caller (the
// GUI); close the returned store when done. The window's first run (no
// database yet) is the station's set-up and, like 'qrdesk init', creates a
// missing key file; on later runs a missing key file is refused, so a lost
// or mistyped one is reported instead of replaced by a new key ring.
func OpenService(ctx context.Context, dbPath, keyFile string) (*app.Service, *store.DB, error) {
	_, err := os.Stat(dbPath)
	firstRun := errors.Is(err, fs.ErrNotExist)
	s, err := openSession(ctx, &Env{Getenv: os.Getenv}, &common{db: dbPath, keyFile: keyFile}, firstRun)
	if err != nil {
		return nil, nil, err
	}
	return s.svc, s.db, nil
}

// backupDesk names the desk a backup file belongs to ('qrdesk backup'
// prints it; 'qrdesk restore' compares it with this desk's).
func backupDesk(ctx context.Context, path string) (store.DeskIdentity, error) {
	return store.DeskOf(ctx, path, true)
}

// deskSchemaVersion is the desk database's schema version this build
// brings ('qrdesk version'): read here, where the CLI meets the store.
func deskSchemaVersion() int { return store.SchemaVersion() }

// logLine appends one JSON line to the log file at path, as a session's
// logger writes them.
func logLine(path string, level slog.Level, msg string, args ...any) error {
	f := store.NewLogFile(path, 10<<20)
	var failed error
	h := slog.NewJSONHandler(writerFunc(func(p []byte) (int, error) {
		n, err := f.Write(p)
		failed = err
		return n, err
	}), nil)
	slog.New(h).Log(context.Background(), level, msg, args...)
	return failed
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }
