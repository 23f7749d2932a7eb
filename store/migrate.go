package store

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Migration folders, one per database: the desk's SQLite, the server's
// SQLite, the server's PostgreSQL.
const (
	deskMigrations     = "migrations/sqlite"
	centralMigrations  = "migrations/central"
	postgresMigrations = "migrations/central_postgres"
)

// migrate applies the embedded numbered migrations of dir not applied yet,
// each in its own transaction with its record, so processes starting
// together apply each one exactly once: SQLite's writing transactions are
// immediate, and on PostgreSQL an advisory lock (migrations only, never
// the write path) makes servers starting together take turns.
func migrate(ctx context.Context, e *engine, dir string) error {
	files, err := migrationFiles(dir)
	if err != nil {
		return err
	}
	for _, m := range files {
		if err := applyMigration(ctx, e, m); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}

type migrationFile struct {
	name    string
	version int
}

// migrationFiles lists the embedded migrations of dir in version order;
// each file name starts with its number (0001_init.sql).
func migrationFiles(dir string) ([]migrationFile, error) {
	names, err := fs.Glob(migrations, dir+"/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]migrationFile, 0, len(names))
	for _, name := range names {
		version, err := strconv.Atoi(strings.SplitN(filepath.Base(name), "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with its number", name)
		}
		out = append(out, migrationFile{name, version})
	}
	return out, nil
}

func applyMigration(ctx context.Context, e *engine, m migrationFile) error {
	tx, err := e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	table := `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`
	if e.postgres {
		if _, err := tx.exec(ctx, `SELECT pg_advisory_xact_lock(8428)`); err != nil {
			return err
		}
		table = `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`
	}
	if _, err := tx.exec(ctx, table); err != nil {
		return err
	}
	var n int
	if err := tx.queryRow(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := migrations.ReadFile(m.name)
	if err != nil {
		return err
	}
	if _, err := tx.exec(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.exec(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, m.version, time.Now().Unix()); err != nil {
		return err
	}
	return tx.commit()
}
