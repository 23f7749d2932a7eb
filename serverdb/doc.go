// Package serverdb is qrdesk-server's database: a SQLite file, or
// PostgreSQL. It implements central.Store. Every statement goes through
// one seam (engine.go) written once with ? placeholders; the desk's own
// database is package store.
//
// Where things are: open.go, ring.go, schema.go (the database and its
// deployment); stations.go, letters.go, sites.go, staff.go (who may
// write); upload.go (batch uploads); apply.go (Apply: every event's
// decision and record) with redeem.go, onlineredeem.go, disable.go,
// undo.go, expire.go, replace.go, conflicts.go, labellock.go and
// labelrow.go (one label's decision), groupcommit.go (SQLite's commits);
// feed.go, compact.go, replica.go (what the desks read); dashboard.go,
// activity.go, flagged.go, removedstaff.go (what people read); backup.go,
// restore.go, epoch.go, writechecks.go (restores and their detection);
// testhooks.go (this module's tests only).
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
