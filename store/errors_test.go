package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
)

// TestLockedDatabase holds the write lock from another connection: a scan
// waits busyTimeout, then fails with a clear message and records nothing.
func TestLockedDatabase(t *testing.T) {
	old := busyTimeout
	busyTimeout = 300 * time.Millisecond
	defer func() { busyTimeout = old }()
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 1})
	other, err := Open(ctx, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.SQL().BeginTx(ctx, nil) // immediate: takes the write lock
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = svc.Redeem(ctx, codes[0].String(), "li")
	if err == nil || !strings.Contains(app.ErrorMessage(err), "busy") {
		t.Fatalf("scan while locked: %v", err)
	}
	if waited := time.Since(start); waited < 250*time.Millisecond {
		t.Fatalf("gave up after %v, before the busy timeout", waited)
	}
	tx.Rollback()
	if v, err := svc.Redeem(ctx, codes[0].String(), "li"); err != nil || v.Outcome != app.OutcomeRedeemed {
		t.Fatalf("after the lock was released: %+v %v", v, err)
	}
}

func TestLogFileRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "qrdesk.log")
	l := NewLogFile(path, 1000)
	line := []byte(strings.Repeat("x", 99) + "\n")
	for i := 0; i < 25; i++ {
		if _, err := l.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	cur, _ := os.Stat(path)
	prev, err := os.Stat(path + ".1")
	if err != nil || cur.Size() > 1000 || prev.Size() > 1000 {
		t.Fatalf("log not rotated: current %v, previous %v (%v)", cur.Size(), prev, err)
	}
}

// TestForgedVariantsTouchNothing redeems every single-character change of
// a real code (same kind of character, so the shape stays): each is
// bad_signature (a date change may also be malformed), none redeems, and
// the code is still unused afterwards.
func TestForgedVariantsTouchNothing(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	svc.UpdateSettings(ctx, map[string]string{"prefix": "WH"}, "t")
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 1})
	s := codes[0].String()
	tried := 0
	for i := 0; i < len(s); i++ {
		var pool string
		switch ch := s[i]; {
		case ch == '-':
			continue
		case ch >= '0' && ch <= '9' && i < 16:
			pool = "0123456789" // date and serial digits
		case i <= 10:
			pool = "ABCDEFGHIJKLMNOPQRSTUVWXYZ" // prefix and station letter
		default:
			pool = app.Alphabet
		}
		for j := 0; j < len(pool); j++ {
			if pool[j] == s[i] {
				continue
			}
			forged := s[:i] + string(pool[j]) + s[i+1:]
			v, err := svc.Redeem(ctx, forged, "li")
			if err != nil {
				t.Fatal(err)
			}
			tried++
			dateDigit := i >= 3 && i < 9
			if v.Outcome != app.OutcomeBadSignature && !(dateDigit && v.Outcome == app.OutcomeMalformed) {
				t.Fatalf("%q: %s, want bad_signature", forged, v.Outcome)
			}
		}
	}
	if v, _ := svc.Check(ctx, s); v.Outcome != app.OutcomeValid {
		t.Fatalf("the real code after %d forgeries: %s", tried, v.Outcome)
	}
	if n := count(t, db, `SELECT count(*) FROM scans WHERE outcome IN ('bad_signature', 'malformed')`); n != tried {
		t.Fatalf("%d forged scans logged, want %d", n, tried)
	}
	t.Logf("%d forged variants refused", tried)
}
