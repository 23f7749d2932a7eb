package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"qrdesk/app"
)

// TestFullDiskRecovers fills a small tmpfs until issuing fails: the error
// says the disk is full, nothing stored before is lost, scans of stored
// codes still give an answer or a clear error, and once there is room again
// the same open database works on.
func TestFullDiskRecovers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(dir, "qrdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	keys, _ := app.LoadKeys(filepath.Join(t.TempDir(), "k.key"), true)
	svc := app.NewService(db, keys, nil)
	svc.UpdateSettings(ctx, map[string]string{"serial_digits": "8"}, "t")
	_, first, err := svc.Issue(ctx, app.IssueRequest{Count: 100})
	if err != nil {
		t.Fatal(err)
	}
	var fullErr error
	stored := 100
	for i := 0; i < 100 && fullErr == nil; i++ {
		if _, _, fullErr = svc.Issue(ctx, app.IssueRequest{Count: 2000}); fullErr == nil {
			stored += 2000
		}
	}
	if fullErr == nil {
		t.Fatal("the 3 MB disk never filled up")
	}
	if msg := app.ErrorMessage(fullErr); !strings.Contains(msg, "disk is full") && !strings.Contains(msg, "disk reported an error") {
		t.Fatalf("full disk error: %q", msg)
	}
	if n := count(t, db, `SELECT count(*) FROM codes`); n != stored {
		t.Fatalf("%d codes after the disk filled, want the %d stored before", n, stored)
	}
	// A scan on a full disk either works or says why; it never half-works.
	v, err := svc.Redeem(ctx, first[0].String(), "li")
	if err == nil && v.Outcome != app.OutcomeRedeemed {
		t.Fatalf("scan on a full disk: %+v", v)
	}
	if out, err := exec.Command("mount", "-o", "remount,size=64m", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount: %v %s", err, out)
	}
	if _, _, err := svc.Issue(ctx, app.IssueRequest{Count: 2000}); err != nil {
		t.Fatalf("after space came back: %v", err)
	}
	if v, err := svc.Redeem(ctx, first[1].String(), "li"); err != nil || v.Outcome != app.OutcomeRedeemed {
		t.Fatalf("scan after space came back: %+v %v", v, err)
	}
	var integrity string
	db.SQL().QueryRow(`PRAGMA integrity_check`).Scan(&integrity)
	if integrity != "ok" {
		t.Fatalf("integrity_check: %s", integrity)
	}
}

// TestBackupWhileScanning takes a backup while scans run: the copy opens,
// passes integrity_check and is consistent (every used code has its
// redemption row).
func TestBackupWhileScanning(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 400})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(codes); i += 4 {
				if _, err := svc.Redeem(ctx, codes[i].String(), "li"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for count(t, db, `SELECT count(*) FROM redemptions`) < 100 {
		time.Sleep(time.Millisecond)
	}
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := db.Backup(ctx, path); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	cp, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	var integrity string
	cp.SQL().QueryRow(`PRAGMA integrity_check`).Scan(&integrity)
	if integrity != "ok" {
		t.Fatalf("backup integrity_check: %s", integrity)
	}
	used, redemptions := count(t, cp, `SELECT count(*) FROM codes WHERE status = 'used'`), count(t, cp, `SELECT count(*) FROM redemptions`)
	if used < 100 || used != redemptions || count(t, cp, `SELECT count(*) FROM codes`) != 400 {
		t.Fatalf("backup: %d used codes, %d redemptions", used, redemptions)
	}
	t.Logf("backup taken with %d of 400 codes redeemed", used)
}
