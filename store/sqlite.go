package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"qrdesk/app"
	"qrdesk/internal/sqlstore"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// busyTimeout is how long a writer waits for another one's lock before it
// reports the database busy (shorter in tests).
var busyTimeout = sqlstore.BusyTimeout

// deskMigrations is the desk's migration folder.
const deskMigrations = "migrations/sqlite"

//go:embed migrations/sqlite/*.sql
var migrations embed.FS

// DB is the SQLite store. It is safe for concurrent use, also by several
// processes on one file.
type DB struct {
	db      *sql.DB
	path    string
	now     func() time.Time
	randoms randomIndex // for searches by part of a code
	refs    refIndex    // for searches by part of a ref
}

var _ app.Store = (*DB)(nil)

// dsn is the desk's connection string (sqlstore.DSN).
func dsn(path string) string { return sqlstore.DSN(path, busyTimeout) }

// Open opens (creating if needed) the database at path and migrates it.
func Open(ctx context.Context, path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, app.ErrorfWrap(app.KindUnavailable, err, "cannot create the folder for database %s", path)
	}
	if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, app.ErrorfWrap(app.KindUnavailable, err, "database %s is read-only or not accessible; check the file and folder permissions and that the drive is not write-protected", path)
	}
	sqldb, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, app.ErrorfWrap(app.KindInternal, err, "cannot open database %s", path)
	}
	d := &DB{db: sqldb, path: path, now: time.Now}
	if err := sqlstore.Migrate(ctx, sqldb, migrations, deskMigrations, false); err != nil {
		sqldb.Close()
		var newer *sqlstore.NewerSchemaError
		if errors.As(err, &newer) {
			return nil, app.Errorf(app.KindUnavailable, "cannot open database %s: %s", path, newer.Message("qrdesk"))
		}
		return nil, d.wrap(err, "cannot open database %s", path)
	}
	if err := fillOrderKeys(ctx, sqldb); err != nil {
		sqldb.Close()
		return nil, d.wrap(err, "cannot open database %s", path)
	}
	var mode string
	if err := sqldb.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		sqldb.Close()
		return nil, app.Errorf(app.KindUnavailable, "database %s cannot use write-ahead logging (journal mode %q): is it on a network drive or read-only?", path, mode)
	}
	return d, nil
}

// UseClock makes the database take the time of settings changes and
// enables from now instead of the system clock; call it before using d, with
// the clock of the service on top (app.Service.Now).
func (d *DB) UseClock(now func() time.Time) { d.now = now }

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// Path is the database file.
func (d *DB) Path() string { return d.path }

// SQL exposes the handle for tests and tools in this module.
func (d *DB) SQL() *sql.DB { return d.db }

// wrap translates driver errors at the store boundary into app errors with a
// message a clerk can act on (sqlstore.Wrap); the cause stays wrapped for
// the log.
func (d *DB) wrap(err error, format string, args ...any) error {
	return sqlstore.Wrap(err, d.path, format, args...)
}

// isUnique reports a UNIQUE constraint violation.
func isUnique(err error) bool { return sqlstore.IsUnique(err) }
