package deskdir

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

// roamingDesk makes, in a new folder, a desk as an older Windows version
// left it in %APPDATA%\qrdesk: a database whose last 100 rows are still in
// its WAL (a checkpoint had not run), the key file, sync.json, the log and
// a template.
func roamingDesk(t *testing.T) string {
	t.Helper()
	live := filepath.Join(t.TempDir(), "live")
	os.Mkdir(live, 0o700)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(live, "qrdesk.db")+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE codes (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if _, err := db.Exec(`INSERT INTO codes VALUES (?)`, i); err != nil {
			t.Fatal(err)
		}
	}
	// The files as a process that is still running (or was killed) has
	// them: the rows are in the WAL, not yet in the database file.
	old := filepath.Join(t.TempDir(), "Roaming", Name)
	os.MkdirAll(filepath.Join(old, "templates"), 0o700)
	for _, f := range []string{"qrdesk.db", "qrdesk.db-wal", "qrdesk.db-shm"} {
		if err := copyFile(filepath.Join(live, f), filepath.Join(old, f)); err != nil {
			t.Fatal(err)
		}
	}
	if info, err := os.Stat(filepath.Join(old, "qrdesk.db-wal")); err != nil || info.Size() == 0 {
		t.Fatalf("the WAL holds nothing: %v", err)
	}
	for f, body := range map[string]string{"qrdesk.key": "key", "sync.json": "{}", "qrdesk.log": "log", filepath.Join("templates", "t.json"): "{}"} {
		if err := os.WriteFile(filepath.Join(old, f), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return old
}

// TestMigrateMovesTheRoamingDeskOnce: a desk left in %APPDATA%\qrdesk by
// an older version moves, whole (the rows still in the WAL, the key file,
// sync.json, the log, the templates), to the machine's folder, once: the
// old folder is gone, a second run moves nothing, and a folder that
// already holds a desk is never overwritten. On one volume the folder is
// renamed; across volumes (a redirected AppData) it is copied.
func TestMigrateMovesTheRoamingDeskOnce(t *testing.T) {
	for _, across := range []bool{false, true} {
		name := "one volume"
		if across {
			name = "across volumes"
		}
		t.Run(name, func(t *testing.T) {
			if across {
				calls := 0
				rename = func(a, b string) error {
					if calls++; calls == 1 {
						return errors.New("invalid cross-device link")
					}
					return os.Rename(a, b)
				}
				t.Cleanup(func() { rename = os.Rename })
			}
			old := roamingDesk(t)
			// The pickup desk, started before the move on a PC with no
			// desk in the machine's folder, logged its failure there.
			to := filepath.Join(t.TempDir(), "ProgramData", Name)
			os.MkdirAll(to, 0o700)
			os.WriteFile(filepath.Join(to, "qrdesk.log"), []byte("not set up yet"), 0o600)
			moved, err := Migrate(old, to)
			if err != nil || !moved {
				t.Fatalf("Migrate: moved %v, %v; want moved", moved, err)
			}
			if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the old folder is still there (%v)", err)
			}
			db, err := sql.Open("sqlite", "file:"+filepath.Join(to, "qrdesk.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var n int
			if err := db.QueryRow(`SELECT count(*) FROM codes`).Scan(&n); err != nil || n != 100 {
				t.Fatalf("the moved database has %d rows (%v), want 100: the WAL must move with it", n, err)
			}
			for f, want := range map[string]string{"qrdesk.key": "key", "sync.json": "{}", "qrdesk.log": "log", filepath.Join("templates", "t.json"): "{}"} {
				if got, err := os.ReadFile(filepath.Join(to, f)); err != nil || string(got) != want {
					t.Errorf("%s after the move: %q, %v; want %q", f, got, err, want)
				}
			}
			if _, err := os.Stat(to + ".moving"); err == nil {
				t.Error("the temporary folder is left behind")
			}

			// Once: nothing left to move; and a desk in place is kept.
			if moved, err := Migrate(old, to); moved || err != nil {
				t.Errorf("second Migrate: moved %v, %v; want nothing", moved, err)
			}
			other := roamingDesk(t)
			if moved, err := Migrate(other, to); moved || err != nil {
				t.Errorf("Migrate onto a desk: moved %v, %v; want nothing", moved, err)
			}
			if _, err := os.Stat(filepath.Join(other, "qrdesk.key")); err != nil {
				t.Errorf("the other desk was touched: %v", err)
			}
			// A folder with anything but a log in it is not taken away.
			busy := filepath.Join(t.TempDir(), Name)
			os.MkdirAll(busy, 0o700)
			os.WriteFile(filepath.Join(busy, "notes.txt"), []byte("mine"), 0o600)
			if moved, err := Migrate(other, busy); moved || err == nil {
				t.Errorf("Migrate onto a folder with a file of someone's: moved %v, %v; want an error", moved, err)
			}
		})
	}
}
