package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// openCentralPostgres opens qrdesk-server's PostgreSQL database and applies
// its migrations. Several servers may start at once: an advisory lock makes
// them migrate one after the other.
func openCentralPostgres(ctx context.Context, url string) (*CentralDB, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL address: %w", err)
	}
	db.SetMaxOpenConns(32)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("cannot reach PostgreSQL (check the address, that the server runs, and the password): %w", err)
	}
	if err := migratePostgres(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("cannot prepare the PostgreSQL database: %w", err)
	}
	return &CentralDB{db: db, path: url, postgres: true}, nil
}

func migratePostgres(ctx context.Context, db *sql.DB) error {
	files, err := migrationFiles("migrations/central_postgres")
	if err != nil {
		return err
	}
	for _, m := range files {
		if err := applyPostgresMigration(ctx, db, m.name, m.version); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}

func applyPostgresMigration(ctx context.Context, db *sql.DB, name string, version int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(8428)`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = $1`, version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := migrations.ReadFile(name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`, version, time.Now().Unix()); err != nil {
		return err
	}
	return tx.Commit()
}

// isUniqueAny reports a UNIQUE violation from either engine.
func isUniqueAny(err error) bool {
	var pe *pgconn.PgError
	return isUnique(err) || (errors.As(err, &pe) && pe.Code == "23505")
}
