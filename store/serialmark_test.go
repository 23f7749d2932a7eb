package store

import (
	"context"
	"os"
	"testing"

	"qrdesk/app"
)

// The serial mark beside the database keeps the serials issued after a
// backup: the database restored from it (its codes and batches of those
// serials gone) continues after them. A damaged mark does not stop issuing.
func TestSerialMarkOutlivesTheDatabase(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	mustIssue(t, svc, app.IssueRequest{Count: 3})
	// What a restore to before the next batch leaves: the batch gone from
	// the database, the mark beside it.
	b, codes := mustIssue(t, svc, app.IssueRequest{Count: 3})
	if codes[2].Serial != 6 {
		t.Fatalf("premise: serial %d, want 6", codes[2].Serial)
	}
	for _, q := range []string{`DELETE FROM codes WHERE serial > 3`, `DELETE FROM batches WHERE first_serial > 3`} {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, again := mustIssue(t, svc, app.IssueRequest{Count: 1}); again[0].Serial != 7 {
		t.Errorf("after the database lost serials 4–6: serial %d, want 7 (the mark kept 6)", again[0].Serial)
	}
	if err := os.WriteFile(db.serialMarkPath(), []byte("{damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, again := mustIssue(t, svc, app.IssueRequest{Count: 1}); again[0].Serial != 8 {
		t.Errorf("with a damaged mark: serial %d, want 8 (by the database)", again[0].Serial)
	}
	if marked, err := db.markedSerial(codes[0].Station, b.LabelDate, codes[0].Prefix); err != nil || marked != 8 {
		t.Errorf("the mark after the next batch: %d (%v), want 8", marked, err)
	}
}
