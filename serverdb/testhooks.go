package serverdb

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"

	"qrdesk/internal/sqlstore"
)

// Hooks for this module's tests: reads on either engine written with ?
// placeholders, and a database that refuses writes. No production path
// calls them.

// QueryRowForTests runs a read-only query written with ? placeholders on
// either engine (this module's tests).
func (c *DB) QueryRowForTests(query string, args ...any) *sql.Row {
	return c.e.queryRow(context.Background(), query, args...).r
}

// QueryForTests runs a read-only query written with ? placeholders on
// either engine (this module's tests and the fault harness).
func (c *DB) QueryForTests(query string, args ...any) (*sql.Rows, error) {
	return c.e.query(context.Background(), query, args...)
}

// OpenRefusingWritesForTests opens the server database at path (made by
// Open) so that it answers every read and refuses every write, as a
// read-only file or a PostgreSQL standby does (this module's tests):
// SQLite with query_only on every connection; PostgreSQL with
// default_transaction_read_only set on the database, for every session
// opened after (the handles open already still write). No migration runs.
func OpenRefusingWritesForTests(ctx context.Context, path string) (*DB, error) {
	if !isPostgres(path) {
		sqldb, err := sql.Open("sqlite", sqlstore.DSN(path, sqlstore.BusyTimeout)+"&_pragma=query_only(1)")
		if err != nil {
			return nil, err
		}
		return &DB{e: &engine{db: sqldb}, path: path}, nil
	}
	admin, err := sql.Open("pgx", path)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	var name string
	if err := admin.QueryRowContext(ctx, `SELECT current_database()`).Scan(&name); err != nil {
		return nil, err
	}
	if _, err := admin.ExecContext(ctx, `ALTER DATABASE `+pgx.Identifier{name}.Sanitize()+` SET default_transaction_read_only = on`); err != nil {
		return nil, err
	}
	db, err := sql.Open("pgx", path)
	if err != nil {
		return nil, err
	}
	return &DB{e: &engine{db: db, postgres: true}, path: path}, nil
}
