package serverdb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/sqlstore"
)

// DB is qrdesk-server's database: a SQLite file, or PostgreSQL.
// Every statement goes through the engine seam (engine.go).
type DB struct {
	e    *engine
	path string

	groupOnce sync.Once     // starts the SQLite group committer on first use
	jobs      chan groupJob // events waiting for the next group commit

	placeMu      sync.Mutex // one PostgreSQL feed placing at a time in this process
	placeStarted time.Time  // when the last one that succeeded began

	// replica: this is a streaming read replica's copy (OpenReplica), read
	// by Replica only. It never places and never writes.
	replica bool

	stationsGen atomic.Int64 // StationsChanged
}

var _ central.Store = (*DB)(nil)

// Open opens (creating if needed) the server database: a SQLite
// file, or PostgreSQL when path is a postgres:// URL.
func Open(ctx context.Context, path string) (*DB, error) {
	if IsPostgres(path) {
		return openCentralPostgres(ctx, path)
	}
	if err := CheckNotOtherURL(path); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	sqldb, err := sql.Open("sqlite", sqlstore.DSN(path, sqlstore.BusyTimeout))
	if err != nil {
		return nil, err
	}
	// Keep the connections: opening one (pragmas, schema) cost a third of
	// the server's CPU under 1,000 desks when the pool kept only two idle.
	sqldb.SetMaxOpenConns(32)
	sqldb.SetMaxIdleConns(32)
	c := &DB{e: &engine{db: sqldb}, path: path}
	if err := migrate(ctx, c.e, centralMigrations); err != nil {
		sqldb.Close()
		if msg := newerMessage(err); msg != "" {
			return nil, app.Errorf(app.KindUnavailable, "cannot open the server database %s: %s", path, msg)
		}
		return nil, sqlstore.Wrap(err, path, "cannot open the server database %s", path)
	}
	if err := c.bindLetters(ctx); err != nil {
		sqldb.Close()
		return nil, sqlstore.Wrap(err, path, "cannot open the server database %s", path)
	}
	return c, nil
}

// openCentralPostgres opens qrdesk-server's PostgreSQL database and applies
// its migrations.
func openCentralPostgres(ctx context.Context, url string) (*DB, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL address: %w", err)
	}
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("cannot reach PostgreSQL (check the address, that the server runs, and the password): %w", err)
	}
	c := &DB{e: &engine{db: db, postgres: true}, path: url}
	if err := migrate(ctx, c.e, postgresMigrations); err != nil {
		db.Close()
		if msg := newerMessage(err); msg != "" {
			return nil, app.Errorf(app.KindUnavailable, "cannot open the PostgreSQL database: %s", msg)
		}
		return nil, fmt.Errorf("cannot prepare the PostgreSQL database: %w", err)
	}
	if err := c.bindLetters(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("cannot prepare the PostgreSQL database: %w", err)
	}
	return c, nil
}

func (c *DB) Close() error {
	c.groupOnce.Do(func() {}) // no committer may start after this
	if c.jobs != nil {
		close(c.jobs)
	}
	c.e.stmts.close()
	return c.e.db.Close()
}
