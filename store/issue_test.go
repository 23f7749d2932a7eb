package store

import (
	"context"
	"errors"
	"testing"

	"qrdesk/app"
)

// TestIssueGivesCacheBack: a big batch runs with a large page cache, and
// the connection goes back to the pool with SQLite's default, so a desk
// does not keep the larger cache after issuing once.
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

// TestIssueDropCodes: a batch issued with DropCodes comes back without its
// codes, and EachBatchCode reads every one of them back in serial order,
// as BatchCodes lists them; an error of the callback stops the reading
// and is returned.
func TestIssueDropCodes(t *testing.T) {
	svc, _, _ := mustOpen(t)
	ctx := context.Background()
	b, codes, err := svc.Issue(ctx, app.IssueRequest{Count: 130, DropCodes: true})
	if err != nil {
		t.Fatal(err)
	}
	if codes != nil || b.Count != 130 {
		t.Fatalf("got %d codes and a batch of %d, want none and 130", len(codes), b.Count)
	}
	recs, err := svc.BatchCodes(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	var read []string
	if err := svc.EachBatchCode(ctx, b.ID, func(code string) error { read = append(read, code); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(read) != len(recs) {
		t.Fatalf("EachBatchCode read %d codes, BatchCodes lists %d", len(read), len(recs))
	}
	for i, r := range recs {
		if read[i] != r.Code {
			t.Fatalf("code %d: EachBatchCode read %s, BatchCodes lists %s", i, read[i], r.Code)
		}
	}
	stop := errors.New("printer out of paper")
	n := 0
	err = svc.EachBatchCode(ctx, b.ID, func(string) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("got %v after %d codes, want the callback's error after 1", err, n)
	}
	if err := svc.EachBatchCode(ctx, b.ID+1, func(string) error { return nil }); app.KindOf(err) != app.KindNotFound {
		t.Fatalf("a batch that does not exist: got %v, want a not-found error", err)
	}
}
