package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"qrdesk/app"
)

// TestIssueGivesCacheBack: a big batch runs with a large page cache and
// without foreign-key checks, and the connection goes back to the pool
// with SQLite's default cache and the checks on, so a desk does not keep
// the larger cache after issuing once, nor a connection that lets a row
// name a batch or code that does not exist.
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
	var kib, fks int
	if err := db.db.QueryRow(`PRAGMA cache_size`).Scan(&kib); err != nil {
		t.Fatal(err)
	}
	if kib != -defaultCacheKiB {
		t.Fatalf("cache_size after issuing %d, want %d", kib, -defaultCacheKiB)
	}
	// The issue ran without foreign-key checks; the connection has them
	// again.
	if err := db.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fks); err != nil {
		t.Fatal(err)
	}
	if fks != 1 {
		t.Fatalf("foreign_keys after issuing %d, want 1", fks)
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

// TestIssueCollisionIssuesNothing: a code whose random part is already
// taken, in the same INSERT or an earlier one of the batch, fails the
// whole batch with a conflict that says to issue again, and nothing of it
// is stored: no batch, no code (each INSERT stops at a broken constraint
// without undoing its own rows; the transaction is rolled back).
func TestIssueCollisionIssuesNothing(t *testing.T) {
	for _, tc := range []struct {
		name      string
		duplicate int // the serial whose random part repeats serial 1's
	}{
		{"SameStatement", 2},
		{"LaterStatement", issueRows*2 + 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, db, _ := mustOpen(t)
			ctx := context.Background()
			makeCode := func(serial int) (app.Code, error) {
				random := fmt.Sprintf("R%011d", serial)
				if serial == tc.duplicate {
					random = fmt.Sprintf("R%011d", 1)
				}
				return app.Code{Random: random, KeyID: 'A', Signature: "SIGNATUR", Date: "261129", Station: "A", Serial: serial, SerialLen: 4}, nil
			}
			spec := app.BatchSpec{Count: issueRows * 3, LabelDate: "2026-11-29", StationID: "A", Serial: true, CreatedAt: 1, Actor: app.Actor{Station: "A"}}
			_, _, err := db.IssueBatch(ctx, spec, makeCode)
			if app.KindOf(err) != app.KindConflict || !strings.Contains(err.Error(), "issue again") {
				t.Fatalf("got %v, want a conflict that says to issue again", err)
			}
			if n := count(t, db, `SELECT count(*) FROM codes`) + count(t, db, `SELECT count(*) FROM batches`); n != 0 {
				t.Fatalf("%d codes and batches stored, want none", n)
			}
			// The connection it used is back in the pool, as the others.
			if _, _, err := db.IssueBatch(ctx, spec, func(serial int) (app.Code, error) {
				return app.Code{Random: fmt.Sprintf("S%011d", serial), KeyID: 'A', Signature: "SIGNATUR", Date: "261129", Station: "A", Serial: serial, SerialLen: 4}, nil
			}); err != nil {
				t.Fatalf("issuing again: %v", err)
			}
		})
	}
}
