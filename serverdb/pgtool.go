package serverdb

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"

	"qrdesk/app"
)

// pgToolCommand is pg_dump or pg_restore (bin) run on the database at dsn
// with args, its password kept off the command line: any local user reads
// a process's arguments in ps, while its environment (PGPASSWORD, which
// libpq reads) only the same user and root can. The address the tool gets
// carries no password, neither in its user part nor as ?password=.
func pgToolCommand(ctx context.Context, bin, dsn string, args ...string) (*exec.Cmd, error) {
	clean, password, err := splitPassword(dsn)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, append(args, "--dbname="+clean)...)
	cmd.Env = os.Environ()
	if password != "" {
		cmd.Env = append(cmd.Env, "PGPASSWORD="+password)
	}
	return cmd, nil
}

// splitPassword takes the password out of a postgres:// address: the
// address without it, and the password ("" when it has none).
func splitPassword(dsn string) (clean, password string, err error) {
	u, err := url.Parse(dsn)
	if err != nil {
		// The parser's error quotes the address, password and all.
		return "", "", fmt.Errorf("the database address is not a postgres:// URL: write it as postgres://USER:PASSWORD@HOST/DB")
	}
	if p, ok := u.User.Password(); ok {
		password = p
		u.User = url.User(u.User.Username())
	}
	if q := u.Query(); q.Has("password") {
		if password == "" {
			password = q.Get("password")
		}
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String(), password, nil
}

// RedactDSN is a database address fit to print or log: a postgres://
// address with its password replaced by xxxxx (in the user part or as
// ?password=); a SQLite file as it is.
func RedactDSN(dsn string) string {
	if !IsPostgres(dsn) {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://…"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// IsPostgres reports whether a database address names PostgreSQL rather
// than a SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// CheckNotOtherURL refuses an address that looks like a URL of some other
// database or service ("mysql://…", "http://…"): as a SQLite path it would
// become folders and a new, empty file named after it, password and all.
// The address is not repeated: it may hold a password.
func CheckNotOtherURL(dsn string) error {
	scheme, _, found := strings.Cut(dsn, "://")
	if !found || IsPostgres(dsn) {
		return nil
	}
	return app.Errorf(app.KindInvalid, "the database address starts with %q: the server's database is a SQLite file or a postgres:// URL; give one of those", scheme+"://")
}
