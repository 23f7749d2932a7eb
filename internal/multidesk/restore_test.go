package multidesk_test

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
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
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "server.DB")
	h, a, b, first := centraltest.TwoDesks(t, func(testing.TB) string { return path }, 3)
	backup := filepath.Join(dir, "backup.DB")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`VACUUM INTO ?`, backup); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	later := a.Issue(t, 3)
	a.Sync(t)
	if v := b.Redeem(t, later[0], "wang"); v.Outcome != app.OutcomeRedeemed { // online: not in B's outbox
		t.Fatalf("desk B: %+v", v)
	}
	a.Sync(t)
	b.Sync(t)

	// The server comes back on the backup.
	restored, err := serverdb.Open(context.Background(), backup)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	api := &server.API{Store: restored, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return h.Now }}
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	a.Svc.Remote = deskclient.New(srv.URL, "qrd_test_Desk_A")
	b.Svc.Remote = deskclient.New(srv.URL, "qrd_test_Desk_B")
	if v := a.Redeem(t, first[0], "li"); v.Outcome != app.OutcomeRedeemed {
		t.Fatalf("desk A after the restore: %+v", v)
	}
	for i := 0; i < 2; i++ {
		for _, d := range []*centraltest.Desk{a, b} {
			d.Svc.Sync(context.Background()) // the first one finds the feed reset
		}
	}
	a.Sync(t)
	b.Sync(t)
	server := serverdbtest.Of(t, restored)
	if n := server.CountLabels(""); n != 6 {
		t.Fatalf("the restored server has %d codes, want all 6 again", n)
	}
	status, station := server.StatusAndStation(later[0])
	if status != "used" || station != "Desk B" {
		t.Fatalf("desk B's online redemption lost by the restore: %s at %q", status, station)
	}
	h2 := *h
	h2.DB = restored
	sameState(t, &h2, "A", a)
	sameState(t, &h2, "B", b)
	// And the feed goes on: a new redemption reaches the other desk.
	a.Redeem(t, later[1], "li")
	b.Sync(t)
	if v, _ := b.Svc.Check(context.Background(), later[1]); v.Outcome != app.OutcomeAlreadyUsed {
		t.Fatalf("after the restore desk B missed a change: %+v", v)
	}
}

// TestFeedAheadRefused: a cursor beyond every position the feed gave is
// told to start over (410 feed_reset), never acknowledged; a negative one
// is a 400.
func TestFeedAheadRefused(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 2)
		a := h.Station(t, "Desk 1", "A")
		h.Upload(t, a)
		for _, tc := range []struct {
			after  string
			status int
			code   string
		}{{"9223372036854775807", 410, protocol.RefusedFeedReset}, {"3", 410, protocol.RefusedFeedReset}, {"-1", 400, app.RefusedInvalid}, {"2", 200, ""}} {
			var out struct{ Code string }
			if st := h.Call(t, "GET", "/v1/changes?after="+tc.after, a, h.Ring, nil, &out); st != tc.status || out.Code != tc.code {
				t.Fatalf("after=%s: %d %q, want %d %q", tc.after, st, out.Code, tc.status, tc.code)
			}
		}
		if err := h.API.FlushAcks(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n, _ := h.DB.Compact(context.Background(), 0); n != 2 {
			t.Fatalf("compaction dropped %d, want the 2 changes desk 1 read (not more)", n)
		}
	})
}
