package store

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/sqlstore"
)

// A desk database that a newer qrdesk migrated (the program was rolled
// back without restoring the backup) is refused with a sentence saying
// what to do, and the file does not change.
func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	mustIssue(t, svc, app.IssueRequest{Count: 3})
	known := SchemaVersion()
	if got := count(t, db, `SELECT max(version) FROM schema_migrations`); got != known {
		t.Fatalf("a migrated database records schema %d, want SchemaVersion %d", got, known)
	}
	newer := known + 2
	// What the newer release did: its migration, and its record of the
	// oldest schema that may open the database now.
	for _, q := range []string{`INSERT INTO schema_migrations (version, applied_at) VALUES (?, 1)`, `UPDATE schema_floor SET oldest = ?`} {
		if _, err := db.SQL().Exec(q, newer); err != nil {
			t.Fatal(err)
		}
	}
	path := db.Path()
	db.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	again, err := Open(ctx, path)
	if err == nil {
		again.Close()
		t.Fatal("Open of a database of schema", newer, "succeeded, want it refused")
	}
	want := "cannot open database " + path + ": this database was upgraded by a newer qrdesk (schema " + strconv.Itoa(newer) + "; this release knows " + strconv.Itoa(known) + "): install that release again, or restore the backup taken before the upgrade (docs/deploy.md, Rolling back)"
	if got := app.ErrorMessage(err); got != want {
		t.Errorf("Open error:\n got %q\nwant %q", got, want)
	}
	if app.KindOf(err) != app.KindUnavailable {
		t.Errorf("Open error kind %v, want KindUnavailable", app.KindOf(err))
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the refused database file changed")
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		t.Errorf("the refused open left %s-wal of %d bytes", path, fi.Size())
	}
}

// The way back from a roll-back: a backup restored over the database the
// newer release left, which is kept beside it as it was.
func TestRestoreOverNewerSchema(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	mustIssue(t, svc, app.IssueRequest{Count: 2})
	backup := filepath.Join(t.TempDir(), "before-upgrade.db")
	if err := db.Backup(ctx, backup); err != nil {
		t.Fatal(err)
	}
	mustIssue(t, svc, app.IssueRequest{Count: 3}) // what the newer release did
	newer := SchemaVersion() + 2
	for _, q := range []string{`INSERT INTO schema_migrations (version, applied_at) VALUES (?, 1)`, `UPDATE schema_floor SET oldest = ?`} {
		if _, err := db.SQL().Exec(q, newer); err != nil {
			t.Fatal(err)
		}
	}
	path := db.Path()
	db.Close()

	saved, err := Restore(ctx, backup, path)
	if err != nil {
		t.Fatalf("Restore over a database of schema %d: %v", newer, err)
	}
	restored, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after the restore: %v", err)
	}
	defer restored.Close()
	if got := count(t, restored, `SELECT count(*) FROM codes`); got != 2 {
		t.Errorf("restored database holds %d codes, want the backup's 2", got)
	}
	kept, err := sql.Open("sqlite", "file:"+saved+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	var codes, highest int
	if err := kept.QueryRow(`SELECT (SELECT count(*) FROM codes), (SELECT max(version) FROM schema_migrations)`).Scan(&codes, &highest); err != nil {
		t.Fatal(err)
	}
	if codes != 5 || highest != newer {
		t.Errorf("the database kept beside (%s) holds %d codes at schema %d, want 5 at %d (as the newer release left it)", saved, codes, highest, newer)
	}
}

// The database records the oldest release (by schema) that may open it,
// and every release checks that record: a release older than the record
// is refused even when the newer release's migrations are not in the
// database's list (its record alone says so), and a release that the
// record allows opens a database that a newer release migrated with
// changes marked harmless to older releases (sqlstore.CompatibleMark).
func TestOldestReleaseThatMayOpen(t *testing.T) {
	ctx := context.Background()
	known := SchemaVersion()
	floor, err := sqlstore.Floor(migrations, deskMigrations)
	if err != nil || floor == 0 || floor > known {
		t.Fatalf("this release's floor %d (%v), schema %d", floor, err, known)
	}
	t.Run("Recorded", func(t *testing.T) {
		_, db, _ := mustOpen(t)
		if got := count(t, db, `SELECT oldest FROM schema_floor`); got != floor {
			t.Errorf("a migrated database records %d as the oldest schema that may open it, want this release's newest migration older releases may not open, %d", got, floor)
		}
	})
	t.Run("RefusedByTheRecord", func(t *testing.T) {
		_, db, _ := mustOpen(t)
		if _, err := db.SQL().Exec(`UPDATE schema_floor SET oldest = ?`, known+1); err != nil {
			t.Fatal(err)
		}
		path := db.Path()
		db.Close()
		again, err := Open(ctx, path)
		if err == nil {
			again.Close()
			t.Fatal("Open of a database that only schema", known+1, "or later may open succeeded, want it refused")
		}
		want := "cannot open database " + path + ": this database was upgraded by a newer qrdesk (schema " + strconv.Itoa(known+1) + "; this release knows " + strconv.Itoa(known) + "): install that release again, or restore the backup taken before the upgrade (docs/deploy.md, Rolling back)"
		if got := app.ErrorMessage(err); got != want {
			t.Errorf("Open error:\n got %q\nwant %q", got, want)
		}
	})
	t.Run("NewerButCompatible", func(t *testing.T) {
		svc, db, _ := mustOpen(t)
		mustIssue(t, svc, app.IssueRequest{Count: 2})
		if _, err := db.SQL().Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, 1)`, known+1); err != nil {
			t.Fatal(err)
		}
		path := db.Path()
		db.Close()
		again, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("Open of a database a newer release migrated compatibly (its record still %d): %v", known, err)
		}
		defer again.Close()
		if got := count(t, again, `SELECT oldest FROM schema_floor`); got != floor {
			t.Errorf("the record after the older release opened it: %d, want %d (never lowered, never raised past the newer release's)", got, floor)
		}
	})
}

// A backup a newer qrdesk made is refused before it replaces anything: it
// would not open once restored. A newer schema whose migrations this
// release may live with (its schema_floor is not beyond this release's)
// is restored.
func TestCheckBackupRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		floor   int // over SchemaVersion
		refused bool
	}{
		{"newer floor", 2, true},
		{"newer, compatible", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, db, _ := mustOpen(t)
			mustIssue(t, svc, app.IssueRequest{Count: 2})
			backup := filepath.Join(t.TempDir(), "from-newer.db")
			if err := db.Backup(ctx, backup); err != nil {
				t.Fatal(err)
			}
			known := SchemaVersion()
			b, err := sql.Open("sqlite", backup)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{`INSERT INTO schema_migrations (version, applied_at) VALUES (` + strconv.Itoa(known+2) + `, 1)`,
				`UPDATE schema_floor SET oldest = ` + strconv.Itoa(known+tc.floor)} {
				if _, err := b.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			b.Close()
			_, err = CheckBackup(ctx, backup)
			if !tc.refused {
				if err != nil {
					t.Errorf("CheckBackup of a compatible newer backup: %v", err)
				}
				return
			}
			want := "the backup " + backup + " was made by a newer qrdesk (schema " + strconv.Itoa(known+2) + "; this release knows " + strconv.Itoa(known) + " and may not open it): install that release to restore it, or give an older backup"
			if got := app.ErrorMessage(err); got != want {
				t.Errorf("CheckBackup:\n got %q\nwant %q", got, want)
			}
		})
	}
}
