package store

import (
	"context"
	"testing"

	"qrdesk/app"
)

// TestRekeyEvent: a redemption waiting in the outbox, its undo waiting
// behind it, and a write number the server gave the old id. RekeyEvent
// moves every one of them to the new id in one transaction, and forgets
// the write number (the server holds that id as another desk's).
func TestRekeyEvent(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 2})
	label := codes[0].String()
	if v, err := svc.Redeem(ctx, label, "li"); err != nil || v.Outcome != app.OutcomeRedeemed {
		t.Fatalf("redeem: %+v %v", v, err)
	}
	u, err := svc.UndoRedemption(ctx, app.UndoRequest{Code: label, Reason: "wrong parcel", Operator: "boss"})
	if err != nil {
		t.Fatal(err)
	}
	old := u.Undoes
	if err := db.RecordWrite(ctx, 7, old); err != nil {
		t.Fatal(err)
	}

	id, err := db.RekeyEvent(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	if id == old || len(id) != len(old) {
		t.Fatalf("new id %q for %q", id, old)
	}
	for _, q := range []string{
		`SELECT count(*) FROM outbox WHERE event_id = ? AND kind = 'redeem' AND state = 'pending'`,
		`SELECT count(*) FROM redemptions WHERE trace_id = ?`,
		`SELECT count(*) FROM scans WHERE trace_id = ?`,
		`SELECT count(*) FROM undos WHERE undoes = ?`,
		`SELECT count(*) FROM outbox WHERE undoes = ? AND kind = 'undo'`,
	} {
		if n := count(t, db, q, id); n != 1 {
			t.Errorf("%s with the new id: %d, want 1", q, n)
		}
		if n := count(t, db, q, old); n != 0 {
			t.Errorf("%s with the old id: %d, want 0", q, n)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM server_writes WHERE key = ?`, old); n != 0 {
		t.Errorf("the old id's write number is kept (%d rows): the desk would name a write the server holds as another desk's", n)
	}

	// The undo's own id is not a redemption: it moves alone.
	undoID, err := db.RekeyEvent(ctx, u.EventID)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM undos WHERE event_id = ? AND undoes = ?`, undoID, id); n != 1 {
		t.Errorf("the undo under its new id %s, naming the redemption %s: %d rows, want 1", undoID, id, n)
	}

	// Only a waiting event is renumbered.
	if id, err := db.RekeyEvent(ctx, old); id != "" || err != nil {
		t.Errorf("renumbering an id no longer waiting (another process renumbered it): %q %v, want nothing done", id, err)
	}
}
