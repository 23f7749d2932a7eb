package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// syncedDesk is a desk set up like a real one: the deployment's key file
// (copied from key, or made by init when key is ""), its letter and name,
// sync settings for the server, and a first sync.
func syncedDesk(t *testing.T, h *centraltest.Harness, key, name, letter string) *station {
	t.Helper()
	s := newBareStation(t)
	if key != "" {
		os.WriteFile(filepath.Join(s.dir, "qrdesk.key"), readFile(t, key), 0o600)
	}
	if code, _, errOut := s.run(t, "init"); code != ExitOK {
		t.Fatal(errOut)
	}
	if code, _, errOut := s.run(t, "settings", "--station-id", letter, "--station-name", name); code != ExitOK {
		t.Fatal(errOut)
	}
	token := h.Station(t, name, letter)
	os.WriteFile(filepath.Join(s.dir, "sync.json"), []byte(fmt.Sprintf(`{"server":%q,"token":%q}`, h.URL, token)), 0o600)
	if code, out, errOut := s.run(t, "sync"); code != ExitOK {
		t.Fatalf("sync: %s %s", out, errOut)
	}
	return s
}

// TestRestoreRefusesAnotherDesksBackup: desks A and B share the key ring
// (every desk of a deployment does), so B's backup verifies at A. Restored
// at A it would make two desks B, issuing B's serials twice: 'qrdesk
// restore' refuses it, naming both desks, and leaves A as it was; A's own
// backup is restored.
func TestRestoreRefusesAnotherDesksBackup(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		a := syncedDesk(t, h, "", "Desk A", "A")
		b := syncedDesk(t, h, filepath.Join(a.dir, "qrdesk.key"), "Desk B", "B")
		backupB, backupA := filepath.Join(t.TempDir(), "b.db"), filepath.Join(t.TempDir(), "a.db")
		if code, out, errOut := b.run(t, "backup", backupB); code != ExitOK || !strings.Contains(out, `"Desk B" (letter B)`) {
			t.Fatalf("backup at desk B: %d %q %s (it should name its desk)", code, out, errOut)
		}
		if code, _, errOut := a.run(t, "backup", backupA); code != ExitOK {
			t.Fatal(errOut)
		}
		code, _, errOut := a.run(t, "restore", backupB)
		if code == ExitOK {
			t.Fatal("desk A restored desk B's backup")
		}
		for _, want := range []string{`"Desk B" (letter B)`, `"Desk A" (letter A)`, "another desk's backup", "a backup this desk made"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("the refusal %q does not say %q", errOut, want)
			}
		}
		if kept, _ := filepath.Glob(filepath.Join(a.dir, "qrdesk.db.before-restore-*")); len(kept) != 0 {
			t.Errorf("the refused restore replaced desk A's database: %v", kept)
		}
		if code, _, errOut := a.run(t, "restore", backupA); code != ExitOK {
			t.Fatalf("desk A's own backup: %s", errOut)
		}
	})
}

// TestLostDeskDatabaseRefused: desk A's database is gone, its key file and
// sync settings are there. Every command, 'qrdesk init' and 'qrdesk sync
// --server' too, refuses to start a new empty database (a redemption
// waiting offline would be lost without a word, and its labels' numbers
// issued again) and says how to restore. Restored from its backup, the
// desk issues again only after a sync, or with a supervisor's override.
func TestLostDeskDatabaseRefused(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		a := syncedDesk(t, h, "", "Desk A", "A")
		backup := filepath.Join(t.TempDir(), "a.db")
		if code, _, errOut := a.run(t, "backup", backup); code != ExitOK {
			t.Fatal(errOut)
		}
		db := filepath.Join(a.dir, "qrdesk.db")
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(db + suffix)
		}
		token := filepath.Join(t.TempDir(), "a.token")
		os.WriteFile(token, []byte("qrd_test_Desk_A\n"), 0o600)
		for _, args := range [][]string{{"issue", "--count", "1"}, {"stats"}, {"init"}, {"sync"}, {"sync", "--server", h.URL, "--token-file", token}} {
			code, _, errOut := a.run(t, args...)
			if code == ExitOK || !strings.Contains(errOut, "is missing") || !strings.Contains(errOut, "qrdesk restore") {
				t.Errorf("%v with the database lost: exit %d %q, want a refusal that says how to restore", args, code, errOut)
			}
			if _, err := os.Stat(db); err == nil {
				t.Fatalf("%v created a new database", args)
			}
		}
		if code, _, errOut := a.run(t, "restore", backup); code != ExitOK {
			t.Fatalf("restore: %s", errOut)
		}
		if code, _, errOut := a.run(t, "issue", "--count", "1"); code == ExitOK || !strings.Contains(errOut, "Sync first") {
			t.Errorf("the restored desk issued before a sync: exit %d %q", code, errOut)
		}
		if code, _, errOut := a.run(t, "issue", "--count", "1", "--supervisor", "chen"); code != ExitOK {
			t.Errorf("the restored desk with a supervisor's override: %s", errOut)
		}
		if code, _, errOut := a.run(t, "sync"); code != ExitOK {
			t.Fatalf("sync: %s", errOut)
		}
		if code, _, errOut := a.run(t, "issue", "--count", "1"); code != ExitOK {
			t.Errorf("the restored desk after its sync: %s", errOut)
		}
	})
}
