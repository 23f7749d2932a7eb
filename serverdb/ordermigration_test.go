package serverdb

import (
	"context"
	"database/sql"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"qrdesk/internal/sqlstore"
	"qrdesk/internal/testpg"
)

// A server database that a release without orders migrated (through the
// renewed tokens and the webhooks' outbox) takes the orders' migration
// when the orders release opens it: the order mark's column comes after
// the migrations it already ran, on both engines, and its data stays.
func TestDatabaseBeforeOrdersTakesTheOrderMigration(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(testing.TB) string) {
		ctx := context.Background()
		p := dbPath(t)
		postgres := strings.HasPrefix(p, "postgres")
		dir, driver, dsn := centralMigrations, "sqlite", sqlstore.DSN(p, 5*time.Second)
		if postgres {
			dir, driver, dsn = postgresMigrations, "pgx", p
		}
		names, err := fs.Glob(migrations, dir+"/*.sql")
		if err != nil {
			t.Fatal(err)
		}
		order, webhooks := 0, 0
		for _, n := range names {
			num, name, _ := strings.Cut(path.Base(n), "_")
			switch name {
			case "code_order.sql":
				order, _ = strconv.Atoi(num)
			case "webhooks.sql":
				webhooks, _ = strconv.Atoi(num)
			}
		}
		if order == 0 || webhooks == 0 || order < webhooks {
			t.Fatalf("%s: the orders' migration is %d, the webhooks' %d: want the orders' after", dir, order, webhooks)
		}
		// The database as the release before orders left it: every
		// migration numbered below the orders' one.
		before := fstest.MapFS{}
		for _, n := range names {
			if v, _ := strconv.Atoi(strings.SplitN(path.Base(n), "_", 2)[0]); v < order {
				data, err := fs.ReadFile(migrations, n)
				if err != nil {
					t.Fatal(err)
				}
				before[n] = &fstest.MapFile{Data: data}
			}
		}
		raw, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		if err := sqlstore.Migrate(ctx, raw, before, dir, postgres); err != nil {
			t.Fatalf("migrating as the release before orders: %v", err)
		}
		if _, err := raw.ExecContext(ctx, `SELECT order_customer FROM codes`); err == nil {
			t.Fatal("the database before orders has codes.order_customer already")
		}
		if _, err := raw.ExecContext(ctx, `INSERT INTO deployment (key, value) VALUES ('before_orders', 'kept')`); err != nil {
			t.Fatal(err)
		}

		c, err := Open(ctx, p) // the orders release
		if err != nil {
			t.Fatalf("opening the database before orders: %v", err)
		}
		defer c.Close()
		var applied, kept int
		if err := c.e.db.QueryRowContext(ctx, c.e.rebind(`SELECT (SELECT count(*) FROM schema_migrations WHERE version IN (?, ?)), (SELECT count(*) FROM deployment WHERE key = 'before_orders')`), order, webhooks).Scan(&applied, &kept); err != nil {
			t.Fatal(err)
		}
		if applied != 2 || kept != 1 {
			t.Errorf("after opening: %d of the webhooks' and orders' migrations recorded, want 2; the earlier row kept %d times, want 1", applied, kept)
		}
		if _, err := c.e.db.ExecContext(ctx, `SELECT order_customer FROM codes`); err != nil {
			t.Errorf("the orders' migration did not run on the database before orders: %v", err)
		}
	})
}
