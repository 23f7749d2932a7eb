package serverdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// A database a qrdesk-server serves is marked as served for as long as it
// runs, so that 'qrdesk-server restore' cannot put a backup in its place
// under it (the server would go on writing into the database moved aside,
// and every desk's work since would be lost with it) and a second server
// cannot serve it at once. On SQLite the mark is an exclusive flock on
// DB.serving beside the file; on PostgreSQL a session advisory lock, held
// by one connection of the server. Both go when the process does, however
// it ends.

// ErrServing is returned when another qrdesk-server serves the database.
var ErrServing = errors.New("a qrdesk-server is serving this database: stop it first (systemctl stop qrdesk-server), then run the command again")

// servingLockKey is the advisory lock's key: "qrdesk" in ASCII.
const servingLockKey = 0x71726465736b

// Serving is the mark of a served database; Release takes it away.
type Serving struct {
	release func()
}

// Release ends the mark (the server stops).
func (s *Serving) Release() {
	if s != nil && s.release != nil {
		s.release()
		s.release = nil
	}
}

// MarkServing marks the database as served by this process, or returns
// ErrServing when another server serves it.
func (c *DB) MarkServing(ctx context.Context) (*Serving, error) {
	if !c.e.postgres {
		release, err := lockServing(c.path)
		if err != nil {
			return nil, err
		}
		return &Serving{release: release}, nil
	}
	conn, err := c.e.conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot mark the database as served: %w", err)
	}
	var got bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, servingLockKey).Scan(&got); err != nil {
		conn.Close()
		return nil, fmt.Errorf("cannot mark the database as served: %w", err)
	}
	if !got {
		conn.Close()
		return nil, ErrServing
	}
	return &Serving{release: func() {
		conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, servingLockKey)
		conn.Close()
	}}, nil
}

// checkNotServed returns ErrServing when a qrdesk-server serves the
// database at dsn (a SQLite file or a postgres:// address).
func checkNotServed(ctx context.Context, dsn string) error {
	if !isPostgres(dsn) {
		if _, err := os.Stat(filepath.Dir(dsn)); err != nil {
			return nil // no folder, so no database and no server on it
		}
		release, err := lockServing(dsn)
		if err != nil {
			return err
		}
		release()
		return nil
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return fmt.Errorf("PostgreSQL address: %w", err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("cannot reach PostgreSQL (check the address, that the server runs, and the password): %w", err)
	}
	defer conn.Close()
	var got bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, servingLockKey).Scan(&got); err != nil {
		return fmt.Errorf("cannot check whether a qrdesk-server serves the database: %w", err)
	}
	if !got {
		return ErrServing
	}
	_, err = conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, servingLockKey)
	return err
}
