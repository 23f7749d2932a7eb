// Package serverdb is qrdesk-server's database: a SQLite file, or
// PostgreSQL. It implements central.Store. Every statement goes through
// one seam (engine.go) written once with ? placeholders; the desk's own
// database is package store.
package serverdb

import (
	"context"
	"embed"
	"errors"

	"qrdesk/internal/sqlstore"
)

//go:embed migrations/central/*.sql migrations/central_postgres/*.sql
var migrations embed.FS

// Migration folders, one per engine: the server's SQLite, the server's
// PostgreSQL.
const (
	centralMigrations  = "migrations/central"
	postgresMigrations = "migrations/central_postgres"
)

// migrate applies the migrations of dir not applied yet (sqlstore.Migrate).
func migrate(ctx context.Context, e *engine, dir string) error {
	return sqlstore.Migrate(ctx, e.db, migrations, dir, e.postgres)
}

// newerMessage is the administrator's sentence when migrate refused a
// database a newer qrdesk-server upgraded, else "".
func newerMessage(err error) string {
	var newer *sqlstore.NewerSchemaError
	if errors.As(err, &newer) {
		return newer.Message("qrdesk-server")
	}
	return ""
}
