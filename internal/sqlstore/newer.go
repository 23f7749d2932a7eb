package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"strings"
)

// NewerSchemaError is Migrate's refusal of a database that a newer release
// has migrated further than this one knows: after the package was rolled
// back without restoring the backup taken before the upgrade. Opening it
// anyway would run old code on tables it does not know (a column it never
// fills, a rule it does not keep), so nothing in it is touched.
type NewerSchemaError struct {
	Found int // the highest migration recorded in the database
	Known int // the highest migration this release brings
	// Oldest is the oldest schema the database says may open it
	// (schema_floor), 0 when it records none (a release before the record).
	Oldest int
}

func (e *NewerSchemaError) Error() string {
	if e.Oldest > 0 {
		return fmt.Sprintf("the database has schema %d and opens only with schema %d or later, newer than this release's %d", e.Found, e.Oldest, e.Known)
	}
	return fmt.Sprintf("the database has schema %d, newer than this release's %d", e.Found, e.Known)
}

// Message is the sentence for the administrator; program is the binary
// that refuses (qrdesk, qrdesk-server).
func (e *NewerSchemaError) Message(program string) string {
	oldest := ""
	if e.Oldest > 0 && e.Oldest != e.Found {
		oldest = fmt.Sprintf(", which only releases of schema %d or later may open", e.Oldest)
	}
	return fmt.Sprintf("this database was upgraded by a newer %s (schema %d%s; this release knows %d): install that release again, or restore the backup taken before the upgrade (docs/deploy.md, Rolling back)", program, e.Found, oldest, e.Known)
}

// The oldest release that may open a database: every Migrate records in
// schema_floor the oldest schema that can read and write the database as
// it left it, and refuses a database whose record is beyond its own
// schema. A migration that older releases can live with (an index, a
// table they never read) says so with CompatibleMark in its text and does
// not raise the record, so a roll-back over it still opens. A database
// without the record (migrated by a release before it) is refused as
// before: when it holds any migration beyond this release's.

// CompatibleMark, a line of a migration, says that releases before it may
// still open a database it migrated.
const CompatibleMark = "-- qrdesk: older releases may open a database with this migration"

// floorTable is the one-row record of the oldest schema that may open the
// database.
func floorTable(postgres bool) string {
	if postgres {
		return `CREATE TABLE IF NOT EXISTS schema_floor (id INTEGER PRIMARY KEY CHECK (id = 1), oldest INTEGER NOT NULL)`
	}
	return `CREATE TABLE IF NOT EXISTS schema_floor (id INTEGER PRIMARY KEY CHECK (id = 1), oldest INTEGER NOT NULL) STRICT`
}

// floorOf is the oldest schema that may open a database these migrations
// (in version order) migrated: the last one not marked CompatibleMark.
func floorOf(fsys fs.FS, files []migrationFile) (int, error) {
	for i := len(files) - 1; i >= 0; i-- {
		body, err := fs.ReadFile(fsys, files[i].name)
		if err != nil {
			return 0, err
		}
		if !strings.Contains(string(body), CompatibleMark) {
			return files[i].version, nil
		}
	}
	return 0, nil
}

// tableExists reports whether db has the table name.
func tableExists(ctx context.Context, db *sql.DB, postgres bool, name string) (bool, error) {
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`
	if postgres {
		q = `SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename = $1 AND schemaname = ANY (current_schemas(false))`
	}
	var n int
	if err := db.QueryRowContext(ctx, q, name).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

// recordedFloor is the database's schema_floor, 0 when it has none.
func recordedFloor(ctx context.Context, db *sql.DB, postgres bool) (int, error) {
	ok, err := tableExists(ctx, db, postgres, "schema_floor")
	if err != nil || !ok {
		return 0, err
	}
	var oldest int
	err = db.QueryRowContext(ctx, `SELECT coalesce(max(oldest), 0) FROM schema_floor`).Scan(&oldest)
	return oldest, err
}

// refuseNewer returns a *NewerSchemaError when db may not be opened by a
// release of schema known: its recorded floor is beyond known, or, without
// one, it records a migration beyond known. It only reads: a database
// without migrations yet (a new file) passes.
func refuseNewer(ctx context.Context, db *sql.DB, postgres bool, known int) error {
	ok, err := tableExists(ctx, db, postgres, "schema_migrations")
	if err != nil || !ok {
		return err
	}
	var found int
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&found); err != nil {
		return err
	}
	floor, err := recordedFloor(ctx, db, postgres)
	if err != nil {
		return err
	}
	switch {
	case floor > known:
		return &NewerSchemaError{Found: max(found, floor), Known: known, Oldest: floor}
	case floor == 0 && found > known:
		return &NewerSchemaError{Found: found, Known: known}
	}
	return nil
}

// recordFloor raises the database's schema_floor to floor (it never
// lowers it: a newer release's record stays). It writes only when the
// record is lower, so a database opened again by the same release is only
// read.
func recordFloor(ctx context.Context, db *sql.DB, postgres bool, floor int) error {
	if floor == 0 {
		return nil
	}
	have, err := recordedFloor(ctx, db, postgres)
	if err != nil || have >= floor {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if postgres {
		// Servers starting together take turns, as for the migrations.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(8428)`); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, floorTable(postgres)); err != nil {
		return err
	}
	q := `INSERT INTO schema_floor (id, oldest) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET oldest = max(schema_floor.oldest, excluded.oldest)`
	if postgres {
		q = `INSERT INTO schema_floor (id, oldest) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET oldest = greatest(schema_floor.oldest, excluded.oldest)`
	}
	if _, err := tx.ExecContext(ctx, q, floor); err != nil {
		return err
	}
	return tx.Commit()
}

// CheckOpens returns the *NewerSchemaError Migrate would return for db
// with the migrations of dir, without writing anything: a backup is
// checked so before it replaces a database this release could then not
// open.
func CheckOpens(ctx context.Context, db *sql.DB, fsys fs.FS, dir string, postgres bool) error {
	files, err := migrationFiles(fsys, dir)
	if err != nil || len(files) == 0 {
		return err
	}
	return refuseNewer(ctx, db, postgres, files[len(files)-1].version)
}

// Floor is the oldest schema that may open a database the migrations of
// dir leave: the newest of them without CompatibleMark.
func Floor(fsys fs.FS, dir string) (int, error) {
	files, err := migrationFiles(fsys, dir)
	if err != nil {
		return 0, err
	}
	return floorOf(fsys, files)
}
