package store

import (
	"context"
	"testing"

	"qrdesk/app"
)

// TestIssueGivesCacheBack: a big batch runs with a large page cache, and
// the connection goes back to the pool with SQLite's default, so a desk
// does not keep 128 MB of cache after issuing once.
func TestIssueGivesCacheBack(t *testing.T) {
	svc, db, _ := mustOpen(t)
	db.db.SetMaxOpenConns(1) // the connection that issued is the one looked at
	if _, err := svc.UpdateSettings(context.Background(), map[string]string{"serial_digits": "6"}, "test"); err != nil {
		t.Fatal(err)
	}
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 20_000})
	if len(codes) != 20_000 {
		t.Fatalf("%d codes", len(codes))
	}
	var kib int
	if err := db.db.QueryRow(`PRAGMA cache_size`).Scan(&kib); err != nil {
		t.Fatal(err)
	}
	if kib != -defaultCacheKiB {
		t.Fatalf("cache_size after issuing %d, want %d", kib, -defaultCacheKiB)
	}
	if n := count(t, db, `SELECT count(*) FROM codes`); n != 20_000 {
		t.Fatalf("%d codes stored", n)
	}
}
