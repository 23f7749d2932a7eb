package cli

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBackupAndRestore(t *testing.T) {
	a := newStation(t)
	var issued issueOut
	a.mustJSON(t, &issued, "issue", "--count", "3")
	backup := filepath.Join(t.TempDir(), "a.db")
	if code, _, errOut := a.run(t, "backup", backup); code != 0 {
		t.Fatal(errOut)
	}
	a.run(t, "redeem", issued.Codes[0])
	code, out, errOut := a.run(t, "restore", backup)
	if code != 0 || !strings.Contains(out, "before-restore") {
		t.Fatalf("restore: %d %s %s", code, out, errOut)
	}
	var v struct{ Outcome string }
	a.mustJSON(t, &v, "check", issued.Codes[0])
	if v.Outcome != "valid" {
		t.Fatalf("after restoring the backup the code is %s, want valid again", v.Outcome)
	}
	kept, _ := filepath.Glob(filepath.Join(a.dir, "qrdesk.db.before-restore-*"))
	if len(kept) != 1 {
		t.Fatalf("the database before the restore was not kept: %v", kept)
	}

	b := newStation(t) // another deployment: another key ring
	b.run(t, "init")
	code, _, errOut = b.run(t, "restore", backup)
	if code == 0 || !strings.Contains(errOut, "another key ring") {
		t.Fatalf("restore under another key ring: exit %d %q", code, errOut)
	}
	// Nor may the other station open A's database with its key file.
	code, _, errOut = b.run(t, "stats", "--db", filepath.Join(a.dir, "qrdesk.db"))
	if code == 0 || !strings.Contains(errOut, "another key ring") {
		t.Fatalf("opening another ring's database: exit %d %q", code, errOut)
	}
	damaged := filepath.Join(t.TempDir(), "bad.db")
	os.WriteFile(damaged, []byte("this is not a database at all, sorry"), 0o600)
	if code, _, errOut := a.run(t, "restore", damaged); code == 0 || !strings.Contains(errOut, "not a qrdesk database") {
		t.Fatalf("restore of a damaged file: exit %d %q", code, errOut)
	}
}

func TestRetiredKeyRefused(t *testing.T) {
	s := newStation(t)
	var old issueOut
	s.mustJSON(t, &old, "issue", "--count", "1")
	s.run(t, "key", "rotate")
	var fresh issueOut
	s.mustJSON(t, &fresh, "issue", "--count", "1")
	if code, _, errOut := s.run(t, "key", "retire", "A"); code != 0 {
		t.Fatal(errOut)
	}
	var v struct{ Outcome, Reason string }
	s.mustJSON(t, &v, "redeem", old.Codes[0])
	if v.Outcome != "bad_signature" || !strings.Contains(v.Reason, "retired key") {
		t.Fatalf("label of a retired key: %+v", v)
	}
	s.mustJSON(t, &v, "redeem", fresh.Codes[0])
	if v.Outcome != "redeemed" {
		t.Fatalf("label of the active key: %+v", v)
	}
	if code, _, errOut := s.run(t, "key", "retire", "B"); code != ExitUsage || !strings.Contains(errOut, "active key") {
		t.Fatalf("retiring the active key: %d %q", code, errOut)
	}
}

// TestRefusedRestoreLeavesBackupUntouched: checking a backup must not write
// to it. Each refused restore leaves the file (and its folder) as it was and
// says what was wrong and what to do.
func TestRefusedRestoreLeavesBackupUntouched(t *testing.T) {
	other := newStation(t) // another deployment, another key ring
	other.run(t, "init")
	other.run(t, "issue", "--count", "2")
	otherBackup := filepath.Join(t.TempDir(), "other.db")
	if code, _, errOut := other.run(t, "backup", otherBackup); code != 0 {
		t.Fatal(errOut)
	}
	random := make([]byte, 8192)
	rand.Read(random)

	for _, tc := range []struct {
		name     string
		make     func(path string) // nil: the file does not exist
		errorHas []string
	}{
		{"Empty", func(p string) { writeFile(t, p, nil) }, []string{"is empty", "qrdesk backup"}},
		{"RandomBytes", func(p string) { writeFile(t, p, random) }, []string{"not a qrdesk database", "qrdesk backup"}},
		{"OtherKeyRing", func(p string) { writeFile(t, p, readFile(t, otherBackup)) }, []string{"another key ring", "key file it was made with"}},
		// A copy of a live database (WAL mode) instead of a 'qrdesk backup'.
		{"OtherLiveDatabase", func(p string) { writeFile(t, p, readFile(t, filepath.Join(other.dir, "qrdesk.db"))) }, []string{"another key ring"}},
		{"Missing", nil, []string{"no file", "qrdesk backup"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStation(t)
			s.run(t, "init")
			dir := t.TempDir()
			path := filepath.Join(dir, "backup.db")
			if tc.make != nil {
				tc.make(path)
			}
			before := snapshot(t, dir)
			code, _, errOut := s.run(t, "restore", path)
			if code == ExitOK {
				t.Fatalf("restore of %s succeeded", tc.name)
			}
			for _, want := range tc.errorHas {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr %q does not mention %q", errOut, want)
				}
			}
			if strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("error is more than one line: %q", errOut)
			}
			if after := snapshot(t, dir); after != before {
				t.Errorf("the refused restore changed the backup's folder:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// snapshot lists each file of dir with its size and sha256.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data := readFile(t, filepath.Join(dir, e.Name()))
		fmt.Fprintf(&b, "%s %d %x; ", e.Name(), len(data), sha256.Sum256(data))
	}
	return b.String()
}
