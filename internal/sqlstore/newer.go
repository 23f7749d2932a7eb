package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
)

// NewerSchemaError is Migrate's refusal of a database that a newer release
// has migrated further than this one knows: after the package was rolled
// back without restoring the backup taken before the upgrade. Opening it
// anyway would run old code on tables it does not know (a column it never
// fills, a rule it does not keep), so nothing in it is touched.
type NewerSchemaError struct {
	Found int // the highest migration recorded in the database
	Known int // the highest migration this release brings
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("the database has schema %d, newer than this release's %d", e.Found, e.Known)
}

// Message is the sentence for the administrator; program is the binary
// that refuses (qrdesk, qrdesk-server).
func (e *NewerSchemaError) Message(program string) string {
	return fmt.Sprintf("this database was upgraded by a newer %s (schema %d; this release knows %d): install that release again, or restore the backup taken before the upgrade (docs/deploy.md, Rolling back)", program, e.Found, e.Known)
}

// refuseNewer returns a *NewerSchemaError when db records a migration
// beyond known. It only reads: a database without migrations yet (a new
// file) passes.
func refuseNewer(ctx context.Context, db *sql.DB, postgres bool, known int) error {
	exists := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`
	if postgres {
		exists = `SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename = 'schema_migrations' AND schemaname = ANY (current_schemas(false))`
	}
	var n int
	if err := db.QueryRowContext(ctx, exists).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	var found int
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&found); err != nil {
		return err
	}
	if found > known {
		return &NewerSchemaError{Found: found, Known: known}
	}
	return nil
}
