package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"qrdesk/internal/testclock"
	"qrdesk/internal/testpg"
)

// TestBackupFailureIsSeen: every backup's outcome is recorded in the
// database, and the running server exports it (the time of the last
// success and of the last failure) and says beside its readiness that the
// latest failed, while it stays ready. A full backup folder is reported as
// such, not as the database refusing writes; a backup of PostgreSQL
// without pg_dump says which package to install, and is recorded as a
// failure too; 'backup --failed' (the unit's OnFailure=) records one.
// Both engines; the full folder is a small tmpfs (root only).
func TestBackupFailureIsSeen(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs as the full backup folder")
	}
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		db := dbPath(t)
		base := testclock.Base()
		at := func(h int) func() time.Time {
			return func() time.Time { return base.Add(time.Duration(h) * time.Hour) }
		}
		run1 := func(clock func() time.Time, args ...string) (int, string, string) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), append(args, "--db", db), &out, &errOut, clock)
			return code, out.String(), errOut.String()
		}
		if code, _, errOut := run1(at(0), "station", "add", "Desk 1", "--letter", "A"); code != 0 {
			t.Fatal(errOut)
		}
		addr := freeAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		var serveErr bytes.Buffer
		go func() { done <- run(ctx, []string{"--db", db, "--listen", addr}, &bytes.Buffer{}, &serveErr, now) }()
		defer func() {
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("server exit %d: %s", code, serveErr.String())
			}
		}()
		metric := func(name string) int64 {
			t.Helper()
			_, body := get(t, "http://"+addr+"/metrics")
			for _, line := range strings.Split(body, "\n") {
				if v, ok := strings.CutPrefix(line, name+" "); ok {
					f, err := strconv.ParseFloat(v, 64)
					if err != nil {
						t.Fatalf("%s: %v", line, err)
					}
					return int64(f)
				}
			}
			t.Fatalf("/metrics has no %s", name)
			return 0
		}
		unix := func(h int) int64 { return at(h)().Unix() }
		if got := metric("qrdesk_backup_last_success_timestamp_seconds"); got != 0 {
			t.Errorf("before any backup: last success %d, want 0", got)
		}

		dir := t.TempDir()
		if code, out, errOut := run1(at(1), "backup", "-o", filepath.Join(dir, "b1.backup")); code != 0 {
			t.Fatalf("backup: exit %d %s%s", code, out, errOut)
		}
		if got := metric("qrdesk_backup_last_success_timestamp_seconds"); got != unix(1) {
			t.Errorf("after a backup: last success %d, want %d", got, unix(1))
		}
		if _, body := get(t, "http://"+addr+"/readyz"); strings.Contains(body, "backup") {
			t.Errorf("/readyz after a good backup: %s", body)
		}

		// The backup folder is full.
		full := filepath.Join(t.TempDir(), "full")
		os.Mkdir(full, 0o700)
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", full).CombinedOutput(); err != nil {
			t.Skipf("mount tmpfs: %v %s", err, out)
		}
		defer exec.Command("umount", full).Run()
		filler, _ := os.Create(filepath.Join(full, "filler"))
		filler.Write(make([]byte, 1<<20)) // fails at 64 KiB: the folder is full
		filler.Close()
		code, out, errOut := run1(at(2), "backup", "-o", filepath.Join(full, "b2.backup"))
		if code != 3 || !strings.Contains(errOut, "the backup folder "+full+" is full") || strings.Contains(errOut, "cannot take writes") {
			t.Errorf("backup into a full folder: exit %d %s%s, want 3 and 'the backup folder %s is full', not 'cannot take writes'", code, out, errOut, full)
		}
		if got := metric("qrdesk_backup_last_failure_timestamp_seconds"); got != unix(2) {
			t.Errorf("after a failed backup: last failure %d, want %d", got, unix(2))
		}
		if got := metric("qrdesk_backup_last_success_timestamp_seconds"); got != unix(1) {
			t.Errorf("after a failed backup: last success %d, want still %d", got, unix(1))
		}
		code, body := get(t, "http://"+addr+"/readyz")
		if code != 200 || !strings.Contains(body, `"backup":"the last backup failed at `+at(2)().UTC().Format(time.RFC3339)) {
			t.Errorf("/readyz after a failed backup: %d %s, want 200 saying the last backup failed", code, body)
		}

		if strings.HasPrefix(db, "postgres") {
			// No pg_dump on the PATH (postgresql-client not installed).
			path := os.Getenv("PATH")
			os.Setenv("PATH", t.TempDir())
			code, out, errOut := run1(at(3), "backup", "-o", filepath.Join(dir, "b3.backup"))
			os.Setenv("PATH", path)
			if code != 3 || !strings.Contains(errOut, "pg_dump is not installed here (Debian: apt install postgresql-client)") {
				t.Errorf("backup without pg_dump: exit %d %s%s", code, out, errOut)
			}
			if got := metric("qrdesk_backup_last_failure_timestamp_seconds"); got != unix(3) {
				t.Errorf("after a backup without pg_dump: last failure %d, want %d", got, unix(3))
			}
		}

		// The unit's OnFailure= records a failure the backup could not.
		if code, out, errOut := run1(at(4), "backup", "--failed", "qrdesk-server-backup.service failed"); code != 0 || !strings.Contains(out, "recorded a failed backup") {
			t.Errorf("backup --failed: exit %d %s%s", code, out, errOut)
		}
		if got := metric("qrdesk_backup_last_failure_timestamp_seconds"); got != unix(4) {
			t.Errorf("after backup --failed: last failure %d, want %d", got, unix(4))
		}
		// A good backup again: the latest no longer failed.
		if code, out, errOut := run1(at(5), "backup", "-o", filepath.Join(dir, "b5.backup")); code != 0 {
			t.Fatalf("backup: exit %d %s%s", code, out, errOut)
		}
		if _, body := get(t, "http://"+addr+"/readyz"); strings.Contains(body, "backup") {
			t.Errorf("/readyz after a good backup again: %s", body)
		}
	})
}
