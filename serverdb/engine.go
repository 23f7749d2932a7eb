package serverdb

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"qrdesk/central"
	"qrdesk/internal/sqlstore"
)

// engine is the one seam between SQLite and PostgreSQL: every statement of
// the server's database goes through it, written once with ? placeholders,
// and is rebound for the engine here. Its handle is
// unexported, so a statement cannot reach PostgreSQL un-rewritten.
type engine struct {
	db       *sql.DB
	postgres bool
	// writeMu queues this process's SQLite writers in Go: waiting in
	// SQLite's busy handler sleeps in steps of up to 100 ms, which is what
	// made the p99 of 64 concurrent clients exceed a second. PostgreSQL
	// locks rows, so its writers run side by side.
	writeMu sync.Mutex

	stmts stmtCache // SQLite's prepared statements
}

// rebind numbers the placeholders for PostgreSQL (sqlstore.Rebind).
func (e *engine) rebind(query string) string {
	if !e.postgres {
		return query
	}
	return sqlstore.Rebind(query)
}

func (e *engine) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := e.prepared(ctx, query); s != nil {
		r, err := s.ExecContext(ctx, args...)
		return r, writeFailure(err)
	}
	r, err := e.db.ExecContext(ctx, e.rebind(query), args...)
	return r, writeFailure(err)
}

func (e *engine) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := e.prepared(ctx, query); s != nil {
		r, err := s.QueryContext(ctx, args...)
		return r, writeFailure(err)
	}
	r, err := e.db.QueryContext(ctx, e.rebind(query), args...)
	return r, writeFailure(err)
}

// writeRow is a *sql.Row whose Scan translates a write the database refuses as
// a whole (writeFailure): an INSERT, UPDATE or DELETE … RETURNING, such as
// an online redemption's guarded UPDATE, reports its failure there, and
// on PostgreSQL a full disk came back as a plain 500 the metrics missed.
type writeRow struct{ r *sql.Row }

// Scan is sql.Row's, with the write failure translated.
func (r writeRow) Scan(dest ...any) error { return writeFailure(r.r.Scan(dest...)) }

func (e *engine) queryRow(ctx context.Context, query string, args ...any) writeRow {
	if s := e.prepared(ctx, query); s != nil {
		return writeRow{s.QueryRowContext(ctx, args...)}
	}
	return writeRow{e.db.QueryRowContext(ctx, e.rebind(query), args...)}
}

// prepared returns query prepared, for SQLite, or nil: see stmtCache.
func (e *engine) prepared(ctx context.Context, query string) *sql.Stmt {
	if e.postgres {
		return nil // pgx keeps its connections' prepared statements itself
	}
	return e.stmts.get(ctx, e.db, query)
}

// begin starts a writing transaction; call tx.done() when finished (it
// rolls back what was not committed and lets the next SQLite writer in).
func (e *engine) begin(ctx context.Context) (*etx, error) {
	if !e.postgres {
		e.writeMu.Lock()
	}
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		if !e.postgres {
			e.writeMu.Unlock()
		}
		return nil, writeFailure(err)
	}
	return &etx{tx: tx, e: e}, nil
}

// etx is a transaction on the engine seam.
type etx struct {
	tx     *sql.Tx
	e      *engine
	closed bool
	// now is the server's clock of the decision being made in the
	// transaction (decide sets it): the feed's changes carry it as their
	// decided_at, which the webhooks deliver.
	now int64
	// fed is set once the decision under way writes a change to the feed
	// (addChanges); decide clears it first (a transaction of the group
	// committer decides several events).
	fed bool
}

func (t *etx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := t.e.prepared(ctx, query); s != nil {
		r, err := t.tx.StmtContext(ctx, s).ExecContext(ctx, args...)
		return r, writeFailure(err)
	}
	r, err := t.tx.ExecContext(ctx, t.e.rebind(query), args...)
	return r, writeFailure(err)
}

func (t *etx) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := t.e.prepared(ctx, query); s != nil {
		r, err := t.tx.StmtContext(ctx, s).QueryContext(ctx, args...)
		return r, writeFailure(err)
	}
	r, err := t.tx.QueryContext(ctx, t.e.rebind(query), args...)
	return r, writeFailure(err)
}

func (t *etx) queryRow(ctx context.Context, query string, args ...any) writeRow {
	if s := t.e.prepared(ctx, query); s != nil {
		return writeRow{t.tx.StmtContext(ctx, s).QueryRowContext(ctx, args...)}
	}
	return writeRow{t.tx.QueryRowContext(ctx, t.e.rebind(query), args...)}
}

func (t *etx) commit() error { return writeFailure(t.tx.Commit()) }

// done rolls back an uncommitted transaction and releases the writer slot.
func (t *etx) done() {
	if t.closed {
		return
	}
	t.closed = true
	t.tx.Rollback()
	if !t.e.postgres {
		t.e.writeMu.Unlock()
	}
}

// isUniqueAny reports a UNIQUE violation from either engine.
func isUniqueAny(err error) bool {
	var pe *pgconn.PgError
	return sqlstore.IsUnique(err) || (errors.As(err, &pe) && pe.Code == "23505")
}

// writeFailure translates, at the store boundary, a write the database
// refuses as a whole (read-only, disk full, no right to write, an I/O
// error) into a *central.WriteFailure; any other error (a constraint, a
// cancelled request) passes unchanged. A statement that reads only never
// fails this way, so wrapping every exec is safe.
func writeFailure(err error) error {
	if err == nil {
		return nil
	}
	if reason := sqlstore.WriteRefusal(err); reason != "" {
		return &central.WriteFailure{Reason: reason, Cause: sqliteWriteCause(err), Err: err}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "25006": // read_only_sql_transaction
			return &central.WriteFailure{Reason: "PostgreSQL is read-only (a standby, or default_transaction_read_only is on)", Cause: central.WriteReadOnly, Err: err}
		case pe.Code == "53100": // disk_full
			return &central.WriteFailure{Reason: "PostgreSQL's disk is full", Cause: central.WriteDiskFull, Err: err}
		case pe.Code == "42501": // insufficient_privilege
			return &central.WriteFailure{Reason: "PostgreSQL does not let the server's role write (" + pe.Message + ")", Cause: central.WriteNoPermission, Err: err}
		case strings.HasPrefix(pe.Code, "53") || strings.HasPrefix(pe.Code, "58"): // insufficient resources, system error
			return &central.WriteFailure{Reason: "PostgreSQL cannot write: " + pe.Message, Cause: central.WriteDiskError, Err: err}
		}
	}
	return err
}

// conn is one connection of the pool for the caller alone, until it closes
// it: for a session's state, such as the advisory lock that marks a
// PostgreSQL database as served (MarkServing).
func (e *engine) conn(ctx context.Context) (*sql.Conn, error) { return e.db.Conn(ctx) }

// sqliteWriteCause is the cause (central.WriteFailure.Cause) of a write
// SQLite refused.
func sqliteWriteCause(err error) string {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return central.WriteOther
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_READONLY:
		return central.WriteReadOnly
	case sqlite3.SQLITE_FULL:
		return central.WriteDiskFull
	case sqlite3.SQLITE_CANTOPEN:
		return central.WriteNoPermission
	case sqlite3.SQLITE_IOERR:
		return central.WriteDiskError
	}
	return central.WriteOther
}
