// Package sqlstore holds what qrdesk's two databases share: the desk's
// (store) and the server's (serverdb). It builds the SQLite connection
// string, runs the numbered migrations, and turns SQLite's errors into
// sentences a clerk can act on. It imports no PostgreSQL driver, so the
// desk binary does not link one.
package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"qrdesk/app"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// BusyTimeout is how long a writer waits for another one's lock before it
// reports the database busy.
const BusyTimeout = 10 * time.Second

// DSN builds the connection string in one place. The pragmas are applied by
// the driver to every new connection of the pool, in this order:
//   - busy_timeout first, so the others wait instead of failing on a lock;
//   - WAL, so readers never block the writer;
//   - synchronous=FULL: every commit is fsynced, so a redemption the clerk
//     saw as green survives a power cut (see docs/design.md);
//   - foreign keys on;
//   - _txlock=immediate: a writing transaction takes the write lock at BEGIN,
//     so two writers queue on busy_timeout instead of failing mid-transaction.
func DSN(path string, busyTimeout time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// ReadOnlyDSN is for looking into a file that must not change (a backup
// before it is restored). mode=ro opens it read-only and query_only refuses
// any write; immutable=1 takes no locks and creates no -wal or -shm file
// beside a copy of a live (WAL) database. No journal mode is set: switching
// to WAL would write the file header.
func ReadOnlyDSN(path string) string {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("immutable", "1")
	q.Add("_pragma", "query_only(1)")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Wrap translates driver errors at the store boundary into app errors with
// a message a clerk can act on; the cause stays wrapped for the log. path is
// the database file the message names. An app error passes unchanged.
func Wrap(err error, path, format string, args ...any) error {
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
			return app.ErrorfWrap(app.KindUnavailable, err, "%s: the database %s is read-only; check the file and folder permissions", msg, path)
		case sqlite3.SQLITE_FULL:
			return app.ErrorfWrap(app.KindUnavailable, err, "%s: the disk is full; free some space and try again (nothing already stored was lost)", msg)
		case sqlite3.SQLITE_CANTOPEN:
			return app.ErrorfWrap(app.KindUnavailable, err, "%s: cannot open %s; check that the folder exists and is writable (not read-only)", msg, path)
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return app.ErrorfWrap(app.KindUnavailable, err, "%s: %s is not a qrdesk database or is damaged; restore it from a backup", msg, path)
		case sqlite3.SQLITE_IOERR:
			return app.ErrorfWrap(app.KindUnavailable, err, "%s: the disk reported an error writing %s; check free space and the drive", msg, path)
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return app.ErrorfWrap(app.KindUnavailable, err, "%s: cancelled", msg)
	}
	return app.ErrorfWrap(app.KindInternal, err, "%s", msg)
}

// WriteRefusal says why SQLite refused a write as a whole (the file is
// read-only, the disk is full, the disk failed), or "" for any other error.
func WriteRefusal(err error) string {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return ""
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_READONLY:
		return "the database file is read-only"
	case sqlite3.SQLITE_FULL:
		return "the disk is full"
	case sqlite3.SQLITE_IOERR:
		return "the disk reported an error"
	case sqlite3.SQLITE_CANTOPEN:
		return "the database file cannot be opened for writing"
	}
	return ""
}

// IsUnique reports a SQLite UNIQUE constraint violation.
func IsUnique(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

// Rebind numbers the ? placeholders of query for PostgreSQL ($1, $2, …).
// Statements here never hold a literal '?' inside quotes. Not cached
// (multi-row statements come in many lengths): the text is copied in the
// pieces between placeholders, which costs well under a microsecond.
func Rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	b := make([]byte, 0, len(query)+2*strings.Count(query, "?"))
	n := int64(0)
	for {
		i := strings.IndexByte(query, '?')
		if i < 0 {
			break
		}
		n++
		b = append(b, query[:i]...)
		b = append(b, '$')
		b = strconv.AppendInt(b, n, 10)
		query = query[i+1:]
	}
	return string(append(b, query...))
}
