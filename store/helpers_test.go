package store

import (
	"context"
	"path/filepath"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testclock"
)

// mustOpen opens a fresh database file in a temp dir and a service on it with
// a new key ring and a clock fixed at 10:00 local time on the suite's day
// (testclock.Day: $QRDESK_TEST_DATE or 2026-11-29).
func mustOpen(tb testing.TB) (*app.Service, *DB, *testclock.Clock) {
	tb.Helper()
	db, err := Open(context.Background(), filepath.Join(tb.TempDir(), "qrdesk.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	keys, err := app.LoadKeys(filepath.Join(tb.TempDir(), "qrdesk.key"), true)
	if err != nil {
		tb.Fatal(err)
	}
	clock := testclock.New(testclock.Base())
	svc := app.NewService(db, keys, nil)
	svc.Now = clock.Now
	db.now = clock.Now
	return svc, db, clock
}

func mustIssue(tb testing.TB, svc *app.Service, req app.IssueRequest) (app.Batch, []app.Code) {
	tb.Helper()
	b, codes, err := svc.Issue(context.Background(), req)
	if err != nil {
		tb.Fatalf("Issue(%+v): %v", req, err)
	}
	return b, codes
}

func count(tb testing.TB, db *DB, query string, args ...any) int {
	tb.Helper()
	var n int
	if err := db.SQL().QueryRow(query, args...).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return n
}
