package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestFeedReadWhileAnotherProcessPlaces (hostile pass, PostgreSQL): a
// second server process on the database is giving feed positions (it holds
// the placing lock, and its placing began before a redemption committed).
// A plain read of the feed asked after that redemption committed must hold
// it: it used to leave the placing to the other process, whose placing
// could not see the redemption, and answered without it; the desk, which
// stops after a short page, took itself for up to date, and the feed from
// memory of this process stayed behind too.
func TestFeedReadWhileAnotherProcessPlaces(t *testing.T) {
	url := testpg.URL(t)
	h := centraltest.New(t, func(testing.TB) string { return url }, 2)
	token := h.Station(t, "Desk 1", "A")
	h.Upload(t, token)
	var p feedPage
	if st := h.Call(t, "GET", "/v1/changes?after=0", token, h.Ring, nil, &p); st != 200 || len(p.Changes) != 2 {
		t.Fatalf("feed: %d %+v", st, p)
	}
	raw, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ctx := context.Background()
	other, err := raw.BeginTx(ctx, nil) // the other process, placing
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback()
	if _, err := other.ExecContext(ctx, `SELECT pg_advisory_xact_lock(8427)`); err != nil {
		t.Fatal(err)
	}
	var r protocol.Result
	if st := h.Call(t, "POST", "/v1/redeem", token, h.Ring, protocol.Event{EventID: "placed-0001", Code: h.Codes[0], Operator: "op", At: 1}, &r); st != 200 || r.Outcome != protocol.OutcomeRedeemed {
		t.Fatalf("redeem: %d %+v", st, r)
	}
	type answer struct {
		status int
		page   feedPage
	}
	done := make(chan answer, 1)
	go func() {
		var q feedPage
		st := h.Call(t, "GET", fmt.Sprintf("/v1/changes?after=%d", p.Next), token, h.Ring, nil, &q)
		done <- answer{st, q}
	}()
	var got answer
	for released := false; ; {
		select {
		case got = <-done:
		case <-time.After(10 * time.Millisecond):
			if released {
				continue
			}
			// The read waits for the other placing to end: end it.
			var waiting int
			if err := raw.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
				AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
			if waiting > 0 {
				other.Rollback()
				released = true
			}
			continue
		}
		break
	}
	if got.status != 200 || len(got.page.Changes) != 1 || got.page.Changes[0].Code != h.Codes[0] {
		t.Fatalf("a read asked after the redemption committed: %d %+v", got.status, got.page)
	}
}

// TestFeedReadWhileAnotherProcessPlacingIsStuck (hostile pass,
// PostgreSQL): the other process took the placing lock and froze (or was
// cut off: PostgreSQL keeps its session until it notices). A read waits for
// it only a moment, then answers with what is placed, as before; the
// redemption comes once the lock is free.
func TestFeedReadWhileAnotherProcessPlacingIsStuck(t *testing.T) {
	url := testpg.URL(t)
	h := centraltest.New(t, func(testing.TB) string { return url }, 2)
	token := h.Station(t, "Desk 1", "A")
	h.Upload(t, token)
	var p feedPage
	if st := h.Call(t, "GET", "/v1/changes?after=0", token, h.Ring, nil, &p); st != 200 || len(p.Changes) != 2 {
		t.Fatalf("feed: %d %+v", st, p)
	}
	raw, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ctx := context.Background()
	stuck, err := raw.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Rollback()
	if _, err := stuck.ExecContext(ctx, `SELECT pg_advisory_xact_lock(8427)`); err != nil {
		t.Fatal(err)
	}
	var r protocol.Result
	if st := h.Call(t, "POST", "/v1/redeem", token, h.Ring, protocol.Event{EventID: "stuck-0001", Code: h.Codes[0], Operator: "op", At: 1}, &r); st != 200 || r.Outcome != protocol.OutcomeRedeemed {
		t.Fatalf("redeem: %d %+v", st, r)
	}
	var q feedPage
	if st := h.Call(t, "GET", fmt.Sprintf("/v1/changes?after=%d", p.Next), token, h.Ring, nil, &q); st != 200 || len(q.Changes) != 0 {
		t.Fatalf("a read while the placer is stuck: %d %+v", st, q)
	}
	stuck.Rollback()
	if st := h.Call(t, "GET", fmt.Sprintf("/v1/changes?after=%d", p.Next), token, h.Ring, nil, &q); st != 200 || len(q.Changes) != 1 {
		t.Fatalf("a read once the placer let go: %d %+v", st, q)
	}
}
