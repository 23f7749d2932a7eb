package serverdb

import (
	"context"
	"database/sql"
	"strings"

	"qrdesk/internal/sqlstore"
)

// Read runs a query that changes nothing, written with ? placeholders, on
// either engine. It is for what looks at the tables from outside the
// server's own statements: the test kit (internal/serverdbtest) asks its
// named questions with it.
func (c *DB) Read(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return c.e.query(ctx, query, args...)
}

// OpenReadOnly opens the server database at path (made by Open) without
// migrating it, so that it answers every read and refuses every write, as
// a read-only file or a PostgreSQL standby does: SQLite with query_only on
// every connection, PostgreSQL with default_transaction_read_only on every
// session of this handle (other handles still write).
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	if !IsPostgres(path) {
		sqldb, err := sql.Open("sqlite", sqlstore.DSN(path, sqlstore.BusyTimeout)+"&_pragma=query_only(1)")
		if err != nil {
			return nil, err
		}
		return &DB{e: &engine{db: sqldb}, path: path}, nil
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	db, err := sql.Open("pgx", path+sep+"default_transaction_read_only=on")
	if err != nil {
		return nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return &DB{e: &engine{db: db, postgres: true}, path: path}, nil
}
