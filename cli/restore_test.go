package cli

import (
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
