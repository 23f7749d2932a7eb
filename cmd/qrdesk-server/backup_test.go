package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupAndRestoreCommands: a backup is a new file, restore checks
// the file before it touches the database, keeps the database that was
// there and starts a new epoch; each mistake says what to do.
func TestBackupAndRestoreCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "server.db")
	run1 := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append(args, "--db", db), &out, &errOut, now)
		return code, out.String(), errOut.String()
	}
	if code, _, errOut := run1("station", "add", "Desk 1", "--letter", "A"); code != 0 {
		t.Fatal(errOut)
	}
	backupFile := filepath.Join(dir, "b1.db")
	if code, out, errOut := run1("backup", "-o", backupFile); code != 0 || !strings.Contains(out, "backup written to "+backupFile) {
		t.Fatalf("backup: exit %d %s%s", code, out, errOut)
	}
	if code, _, _ := run1("station", "add", "Desk 2", "--letter", "B"); code != 0 {
		t.Fatal("station add after the backup")
	}
	corrupt := filepath.Join(dir, "corrupt.db")
	os.WriteFile(corrupt, []byte("not a database at all, but long enough to look like a file"), 0o600)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"BackupOverFile", []string{"backup", "-o", backupFile}, 3, "exists already: give a new file name"},
		{"BackupNoFile", []string{"backup"}, 2, "backup -o FILE"},
		{"BackupNoFolder", []string{"backup", "-o", filepath.Join(dir, "absent", "b.db")}, 3, "there is no folder"},
		{"RestoreMissing", []string{"restore", filepath.Join(dir, "absent.db")}, 3, "there is no backup file"},
		{"RestoreCorrupt", []string{"restore", corrupt}, 3, "is not a qrdesk-server backup"},
		{"RestoreNoFile", []string{"restore"}, 2, "restore FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run1(tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d %q, want %d and %q", code, errOut, tc.code, tc.want)
			}
		})
	}
	code, out, errOut := run1("restore", backupFile)
	if code != 0 || !strings.Contains(out, "history epoch 1 started") || !strings.Contains(out, "is kept at "+db+".before-restore-") {
		t.Fatalf("restore: exit %d %s%s", code, out, errOut)
	}
	_, list, _ := run1("station", "list")
	if !strings.Contains(list, "Desk 1") || strings.Contains(list, "Desk 2") {
		t.Errorf("after the restore the stations are:\n%s\nwant Desk 1 only (Desk 2 came after the backup)", list)
	}
	if m, _ := filepath.Glob(db + ".before-restore-*"); len(m) == 0 {
		t.Error("the database that was there is gone")
	}
}
