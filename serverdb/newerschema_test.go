package serverdb

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"qrdesk/internal/sqlstore"

	"qrdesk/internal/testpg"
)

// A server database that a newer qrdesk-server migrated (the package was
// rolled back without restoring the backup) is refused with a sentence
// saying what to do, and nothing in it changes: no migration runs, no
// letter is bound.
func TestOpenRefusesNewerSchema(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(testing.TB) string) {
		ctx := context.Background()
		path := dbPath(t)
		postgres := strings.HasPrefix(path, "postgres")
		known := SchemaVersion(postgres)
		newer := known + 2

		c, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		var recorded int
		if err := c.e.db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&recorded); err != nil {
			t.Fatal(err)
		}
		if recorded != known {
			t.Fatalf("a migrated database records schema %d, want SchemaVersion %d", recorded, known)
		}
		// What the newer release did: its migration, a table of its own
		// and a row in ours.
		for _, q := range []string{
			`INSERT INTO schema_migrations (version, applied_at) VALUES (` + strconv.Itoa(newer) + `, 1)`,
			`UPDATE schema_floor SET oldest = ` + strconv.Itoa(newer),
			`CREATE TABLE from_newer (x INTEGER)`,
			`INSERT INTO from_newer (x) VALUES (7)`,
			`INSERT INTO deployment (key, value) VALUES ('from_newer', 'kept')`,
		} {
			if _, err := c.e.db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		c.Close()
		var before []byte
		if !postgres {
			if before, err = os.ReadFile(path); err != nil {
				t.Fatal(err)
			}
		}

		c, err = Open(ctx, path)
		if err == nil {
			c.Close()
			t.Fatal("Open of a database of schema", newer, "succeeded, want it refused")
		}
		want := "this database was upgraded by a newer qrdesk-server (schema " + strconv.Itoa(newer) + "; this release knows " + strconv.Itoa(known) + "): install that release again, or restore the backup taken before the upgrade (docs/deploy.md, Rolling back)"
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open error:\n got %q\nwant it to contain %q", err, want)
		}

		if !postgres {
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Error("the refused database file changed")
			}
		}
		driver, dsn := "pgx", path
		if !postgres {
			driver, dsn = "sqlite", "file:"+path+"?mode=ro"
		}
		raw, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		var highest, rows, x int
		var value string
		if err := raw.QueryRowContext(ctx, `SELECT (SELECT max(version) FROM schema_migrations), (SELECT count(*) FROM schema_migrations), (SELECT x FROM from_newer), (SELECT value FROM deployment WHERE key = 'from_newer')`).Scan(&highest, &rows, &x, &value); err != nil {
			t.Fatal(err)
		}
		files, err := sqlstoreVersions(map[bool]string{false: centralMigrations, true: postgresMigrations}[postgres])
		if err != nil {
			t.Fatal(err)
		}
		if highest != newer || rows != len(files)+1 || x != 7 || value != "kept" {
			t.Errorf("after the refusal: schema %d in %d records, from_newer %d, deployment %q; want %d in %d, 7, \"kept\"", highest, rows, x, value, newer, len(files)+1)
		}
	})
}

// The server database records the oldest release (by schema) that may
// open it, and every release checks the record, on both engines: an older
// release is refused by the record alone, and a newer release's migration
// marked harmless to older releases leaves the record, so they still open.
func TestOldestReleaseThatMayOpen(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(testing.TB) string) {
		ctx := context.Background()
		path := dbPath(t)
		known := SchemaVersion(strings.HasPrefix(path, "postgres"))
		c, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		floor, err := sqlstore.Floor(migrations, map[bool]string{false: centralMigrations, true: postgresMigrations}[strings.HasPrefix(path, "postgres")])
		if err != nil || floor == 0 || floor > known {
			t.Fatalf("this release's floor %d (%v), schema %d", floor, err, known)
		}
		var oldest int
		if err := c.e.db.QueryRowContext(ctx, `SELECT oldest FROM schema_floor`).Scan(&oldest); err != nil || oldest != floor {
			t.Errorf("a migrated database records %d (%v) as the oldest schema that may open it, want this release's newest migration older releases may not open, %d", oldest, err, floor)
		}
		// A newer release's compatible migration: it opens.
		if _, err := c.e.db.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (`+strconv.Itoa(known+1)+`, 1)`); err != nil {
			t.Fatal(err)
		}
		c.Close()
		c, err = Open(ctx, path)
		if err != nil {
			t.Fatalf("Open of a database a newer release migrated compatibly (its record still %d): %v", known, err)
		}
		// A newer release that older ones may not follow: refused.
		if _, err := c.e.db.ExecContext(ctx, `UPDATE schema_floor SET oldest = `+strconv.Itoa(known+1)); err != nil {
			t.Fatal(err)
		}
		c.Close()
		c, err = Open(ctx, path)
		if err == nil {
			c.Close()
			t.Fatal("Open of a database that only schema", known+1, "or later may open succeeded, want it refused")
		}
		want := "this database was upgraded by a newer qrdesk-server (schema " + strconv.Itoa(known+1) + "; this release knows " + strconv.Itoa(known) + "): install that release again"
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open error:\n got %q\nwant it to contain %q", err, want)
		}
	})
}

// A SQLite backup a newer qrdesk-server made, which this release may not
// open, is refused before it replaces the database.
func TestRestoreRefusesABackupOfANewerSchema(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	backup, db := filepath.Join(dir, "from-newer.db"), filepath.Join(dir, "central.db")
	for _, path := range []string{backup, db} {
		c, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	known := SchemaVersion(false)
	raw, err := sql.Open("sqlite", backup)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`INSERT INTO schema_migrations (version, applied_at) VALUES (` + strconv.Itoa(known+1) + `, 1)`, `UPDATE schema_floor SET oldest = ` + strconv.Itoa(known+1)} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Restore(ctx, backup, db, time.Unix(1_800_000_000, 0))
	want := backup + " was made by a newer qrdesk-server (schema " + strconv.Itoa(known+1) + ", which this release's " + strconv.Itoa(known) + " may not open): restore it with that release"
	if err == nil || err.Error() != want {
		t.Errorf("Restore of a newer backup: %v\nwant %q", err, want)
	}
	if after, err := os.ReadFile(db); err != nil || !bytes.Equal(before, after) {
		t.Errorf("the database changed after the refused restore (%v)", err)
	}
}
