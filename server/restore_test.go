package server_test

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/testpg"
	"qrdesk/server"
	"qrdesk/serverdb"
)

// TestServerRestoredFromBackup (found by the second hostile pass): the
// server's database is restored from a backup older than what the desks
// have read. The desks' cursors are then ahead of its feed: they are told
// (410 feed_reset), start over from a snapshot and send their batches and
// events again, so the server gets back what it lost and every desk agrees
// with it; nothing is missed in the feed afterwards.
func TestServerRestoredFromBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "server.db")
	h, a, b, first := twoDesks(t, func(testing.TB) string { return path }, 3)
	backup := filepath.Join(dir, "backup.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`VACUUM INTO ?`, backup); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	later := a.issue(t, 3)
	a.sync(t)
	if v := b.redeem(t, later[0], "wang"); v.Outcome != app.OutcomeRedeemed { // online: not in B's outbox
		t.Fatalf("desk B: %+v", v)
	}
	a.sync(t)
	b.sync(t)

	// The server comes back on the backup.
	restored, err := serverdb.Open(context.Background(), backup)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	api := &server.API{Store: restored, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return h.now }}
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	a.svc.Remote = server.NewClient(srv.URL, "qrd_test_Desk_A")
	b.svc.Remote = server.NewClient(srv.URL, "qrd_test_Desk_B")
	if v := a.redeem(t, first[0], "li"); v.Outcome != app.OutcomeRedeemed {
		t.Fatalf("desk A after the restore: %+v", v)
	}
	for i := 0; i < 2; i++ {
		for _, d := range []*desk{a, b} {
			d.svc.Sync(context.Background()) // the first one finds the feed reset
		}
	}
	a.sync(t)
	b.sync(t)
	var n int
	restored.QueryRowForTests(`SELECT count(*) FROM codes`).Scan(&n)
	if n != 6 {
		t.Fatalf("the restored server has %d codes, want all 6 again", n)
	}
	var status, station string
	restored.QueryRowForTests(`SELECT status, used_station FROM codes WHERE code = ?`, later[0]).Scan(&status, &station)
	if status != "used" || station != "Desk B" {
		t.Fatalf("desk B's online redemption lost by the restore: %s at %q", status, station)
	}
	h2 := *h
	h2.db = restored
	sameState(t, &h2, "A", a)
	sameState(t, &h2, "B", b)
	// And the feed goes on: a new redemption reaches the other desk.
	a.redeem(t, later[1], "li")
	b.sync(t)
	if v, _ := b.svc.Check(context.Background(), later[1]); v.Outcome != app.OutcomeAlreadyUsed {
		t.Fatalf("after the restore desk B missed a change: %+v", v)
	}
}

// TestFeedAheadRefused: a cursor beyond every position the feed gave is
// told to start over (410 feed_reset), never acknowledged; a negative one
// is a 400.
func TestFeedAheadRefused(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := newCentral(t, dbPath, 2)
		a := h.station(t, "Desk 1", "A")
		h.upload(t, a)
		for _, tc := range []struct {
			after  string
			status int
			code   string
		}{{"9223372036854775807", 410, app.RefusedFeedReset}, {"3", 410, app.RefusedFeedReset}, {"-1", 400, app.RefusedInvalid}, {"2", 200, ""}} {
			var out struct{ Code string }
			if st := h.call(t, "GET", "/v1/changes?after="+tc.after, a, h.ring, nil, &out); st != tc.status || out.Code != tc.code {
				t.Fatalf("after=%s: %d %q, want %d %q", tc.after, st, out.Code, tc.status, tc.code)
			}
		}
		if err := h.api.FlushAcks(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n, _ := h.db.Compact(context.Background(), 0); n != 2 {
			t.Fatalf("compaction dropped %d, want the 2 changes desk 1 read (not more)", n)
		}
	})
}
