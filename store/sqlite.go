package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"qrdesk/app"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// busyTimeout is how long a writer waits for another one's lock before it
// reports the database busy.
var busyTimeout = 10 * time.Second

//go:embed migrations/sqlite/*.sql migrations/central/*.sql migrations/central_postgres/*.sql
var migrations embed.FS

// DB is the SQLite store. It is safe for concurrent use, also by several
// processes on one file.
type DB struct {
	db      *sql.DB
	path    string
	now     func() time.Time
	randoms randomIndex // for searches by part of a code
}

var _ app.Store = (*DB)(nil)

// dsn builds the connection string in one place. The pragmas are applied by
// the driver to every new connection of the pool, in this order:
//   - busy_timeout first, so the others wait instead of failing on a lock;
//   - WAL, so readers never block the writer;
//   - synchronous=FULL: every commit is fsynced, so a redemption the clerk
//     saw as green survives a power cut (see docs/design.md);
//   - foreign keys on;
//   - _txlock=immediate: a writing transaction takes the write lock at BEGIN,
//     so two writers queue on busy_timeout instead of failing mid-transaction.
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// readOnlyDSN is for looking into a file that must not change (a backup
// before it is restored). mode=ro opens it read-only and query_only refuses
// any write; immutable=1 takes no locks and creates no -wal or -shm file
// beside a copy of a live (WAL) database. No journal mode is set: switching
// to WAL would write the file header.
func readOnlyDSN(path string) string {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("immutable", "1")
	q.Add("_pragma", "query_only(1)")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

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
	e := &engine{db: sqldb}
	err = migrate(ctx, e, deskMigrations)
	e.stmts.close() // the desk's own statements do not go through the engine
	if err != nil {
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
// message a clerk can act on; the cause stays wrapped for the log.
func (d *DB) wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	var ae *app.Error
	if errors.As(err, &ae) {
		return err
	}
	msg := fmt.Sprintf(format, args...)
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return app.ErrorfWrap(app.KindUnavailable, err, "%s: the database is busy (locked by another program); try again", msg)
		case sqlite3.SQLITE_READONLY:
			return app.ErrorfWrap(app.KindUnavailable, err, "%s: the database %s is read-only; check the file and folder permissions", msg, d.path)
		case sqlite3.SQLITE_FULL:
			return app.ErrorfWrap(app.KindUnavailable, err, "%s: the disk is full; free some space and try again (nothing already stored was lost)", msg)
		case sqlite3.SQLITE_CANTOPEN:
			return app.ErrorfWrap(app.KindUnavailable, err, "%s: cannot open %s; check that the folder exists and is writable (not read-only)", msg, d.path)
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return app.ErrorfWrap(app.KindUnavailable, err, "%s: %s is not a qrdesk database or is damaged; restore it from a backup", msg, d.path)
		case sqlite3.SQLITE_IOERR:
			return app.ErrorfWrap(app.KindUnavailable, err, "%s: the disk reported an error writing %s; check free space and the drive", msg, d.path)
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return app.ErrorfWrap(app.KindUnavailable, err, "%s: cancelled", msg)
	}
	return app.ErrorfWrap(app.KindInternal, err, "%s", msg)
}

// isUnique reports a UNIQUE constraint violation.
func isUnique(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}
