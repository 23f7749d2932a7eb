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
// and every desk's work since would be lost with it). Several servers may
// serve one database (behind a load balancer), so the mark is shared: on
// SQLite a shared flock on DB.serving beside the file, on PostgreSQL a
// shared session advisory lock held by one connection of each server; a
// restore needs it exclusive. Both go when the process does, however it
// ends.

// ErrServing is returned when a qrdesk-server serves the database.
var ErrServing = errors.New("a qrdesk-server is serving this database: stop it first (systemctl stop qrdesk-server, on every server of the database), then run the command again")

// errRestoring is returned to a server starting while a restore holds the
// database.
var errRestoring = errors.New("the database is being restored ('qrdesk-server restore'): start the server once the restore has ended")

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

// MarkServing marks the database as served by this process (beside any
// other server's mark); it waits for no restore, and fails only while
// one holds the database.
func (c *DB) MarkServing(ctx context.Context) (*Serving, error) {
	if !c.e.postgres {
		release, err := lockServing(c.path, true)
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
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock_shared($1)`, servingLockKey).Scan(&got); err != nil {
		conn.Close()
		return nil, fmt.Errorf("cannot mark the database as served: %w", err)
	}
	if !got {
		conn.Close()
		return nil, errRestoring
	}
	return &Serving{release: func() {
		conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock_shared($1)`, servingLockKey)
		conn.Close()
	}}, nil
}

// holdForRestore returns ErrServing when a qrdesk-server serves the
// database at dsn (a SQLite file or a postgres:// address); otherwise it
// holds the database against servers starting until release.
func holdForRestore(ctx context.Context, dsn string) (release func(), err error) {
	if !IsPostgres(dsn) {
		if _, err := os.Stat(filepath.Dir(dsn)); err != nil {
			return func() {}, nil // no folder, so no database and no server on it
		}
		return lockServing(dsn, false)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL address: %w", err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("cannot reach PostgreSQL (check the address, that the server runs, and the password): %w", err)
	}
	release = func() {
		conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, servingLockKey)
		conn.Close()
		db.Close()
	}
	var got bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, servingLockKey).Scan(&got); err != nil {
		release()
		return nil, fmt.Errorf("cannot check whether a qrdesk-server serves the database: %w", err)
	}
	if !got {
		release()
		return nil, ErrServing
	}
	return release, nil
}
