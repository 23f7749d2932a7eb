package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Migrate applies the numbered migrations of dir in fsys (embedded) not
// applied yet to db, PostgreSQL when postgres is set, else SQLite opened
// with DSN. Each runs in its own transaction with its record, so processes
// starting together apply each one exactly once: SQLite's writing
// transactions are immediate, and on PostgreSQL an advisory lock
// (migrations only, never the write path) makes servers starting together
// take turns. A database that only newer releases may open (its
// schema_floor, newer.go) is refused untouched with a *NewerSchemaError;
// once migrated, the database records the oldest schema that may open it.
func Migrate(ctx context.Context, db *sql.DB, fsys fs.FS, dir string, postgres bool) error {
	files, err := migrationFiles(fsys, dir)
	if err != nil {
		return err
	}
	if len(files) > 0 {
		if err := refuseNewer(ctx, db, postgres, files[len(files)-1].version); err != nil {
			return err
		}
	}
	for _, m := range files {
		if err := applyMigration(ctx, db, fsys, postgres, m); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	floor, err := floorOf(fsys, files)
	if err != nil {
		return err
	}
	if err := recordFloor(ctx, db, postgres, floor); err != nil {
		return fmt.Errorf("record the oldest schema that may open the database: %w", err)
	}
	return nil
}

type migrationFile struct {
	name    string
	version int
}

// migrationFiles lists the embedded migrations of dir in version order;
// each file name starts with its number (0001_init.sql), and no two share
// one: the runner records numbers, so a database that ran one of two
// files of a number would never run the other (two branches each adding
// their next migration, merged without renumbering).
func migrationFiles(fsys fs.FS, dir string) ([]migrationFile, error) {
	names, err := fs.Glob(fsys, dir+"/*.sql")
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
		if n := len(out); n > 0 && out[n-1].version == version {
			return nil, fmt.Errorf("migrations %s and %s share the number %d: renumber the later one after the last", out[n-1].name, name, version)
		}
		out = append(out, migrationFile{name, version})
	}
	return out, nil
}

func applyMigration(ctx context.Context, db *sql.DB, fsys fs.FS, postgres bool, m migrationFile) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rebind := func(query string) string { return query }
	if postgres {
		rebind = Rebind
	}
	table := `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`
	if postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(8428)`); err != nil {
			return err
		}
		table = `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`
	}
	if _, err := tx.ExecContext(ctx, table); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRowContext(ctx, rebind(`SELECT count(*) FROM schema_migrations WHERE version = ?`), m.version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := fs.ReadFile(fsys, m.name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, rebind(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`), m.version, time.Now().Unix()); err != nil {
		return err
	}
	return tx.Commit()
}

// SchemaVersion is the number of the last migration in dir of fsys: the
// schema version a binary brings (qrdesk version, qrdesk-server --version),
// the one a database records once migrated, and the one Migrate compares
// to refuse a database of a newer release. Numbers have gaps (migrations
// made on branches), so it is not the count of files.
func SchemaVersion(fsys fs.FS, dir string) int {
	files, err := migrationFiles(fsys, dir)
	if err != nil || len(files) == 0 {
		return 0
	}
	return files[len(files)-1].version
}

// Versions are the migration numbers of dir in fsys, in order.
func Versions(fsys fs.FS, dir string) ([]int, error) {
	files, err := migrationFiles(fsys, dir)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(files))
	for i, f := range files {
		out[i] = f.version
	}
	return out, nil
}
