package server_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/server"
	"qrdesk/serverdb"
)

// lookupCounter is the real database, counting the token lookups the
// server makes.
type lookupCounter struct {
	*serverdb.DB
	lookups atomic.Int64
}

func (c *lookupCounter) StationByToken(ctx context.Context, hash string) (central.Station, error) {
	c.lookups.Add(1)
	return c.DB.StationByToken(ctx, hash)
}

// TestFeedReadsKeepTheTokenLookup: a desk's feed reads take its station
// from the cache of token lookups (1,000 desks following the feed made
// 2,300 lookups a second), yet a revocation, a new token or a move to
// another site made through the server's database refuses or moves the
// desk's very next feed read; one made by another process on the same
// database takes effect within the feed's cache time (10 s). A desk
// following the feed asks every few seconds, so a lookup serves its feed
// reads longer than the 2 s it serves writes. Both engines.
func TestFeedReadsKeepTheTokenLookup(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		path := dbPath(t)
		h := centraltest.New(t, func(testing.TB) string { return path }, 3)
		counted := &lookupCounter{DB: h.DB}
		now := func() time.Time { return h.Now }
		api := &server.API{Store: counted, Log: slog.New(slog.DiscardHandler), Now: now, Metrics: server.NewMetrics(h.DB, now)}
		srv := httptest.NewServer(api.Handler())
		defer srv.Close()
		read := func(token string) (int, map[string]any) {
			t.Helper()
			var out map[string]any
			st := h.CallURL(t, srv.URL, "GET", "/v1/changes?after=0", token, h.Ring, nil, &out)
			return st, out
		}
		token := h.Station(t, "Desk 1", "B")
		if st, out := read(token); st != 200 {
			t.Fatalf("first feed read: %d %v", st, out)
		}
		before := counted.lookups.Load()
		for range 5 {
			if st, out := read(token); st != 200 {
				t.Fatalf("feed read: %d %v", st, out)
			}
		}
		if n := counted.lookups.Load() - before; n != 0 {
			t.Fatalf("5 feed reads within the cache's time looked the token up %d times, want 0", n)
		}
		time.Sleep(3 * time.Second) // past the writes' 2 s, within the feed's 10 s
		if st, out := read(token); st != 200 {
			t.Fatalf("feed read: %d %v", st, out)
		}
		if n := counted.lookups.Load() - before; n != 0 {
			t.Fatalf("a feed read 3 s after the lookup looked the token up again (%d lookups): a desk following the feed asks every few seconds", n)
		}

		ctx := context.Background()
		if err := h.DB.RevokeStation(ctx, "Desk 1", h.Now.Unix()); err != nil {
			t.Fatal(err)
		}
		if st, out := read(token); st != 403 || out["code"] != "revoked" {
			t.Fatalf("the feed read right after the revocation: %d %v, want 403 revoked", st, out)
		}
		if err := h.DB.RenewStation(ctx, "Desk 1", server.HashToken("qrd_test_desk1_new")); err != nil {
			t.Fatal(err)
		}
		if st, out := read("qrd_test_desk1_new"); st != 200 {
			t.Fatalf("the new token: %d %v", st, out)
		}
		if st, out := read(token); st != 401 {
			t.Fatalf("the old token after a renewal: %d %v, want 401", st, out)
		}

		// Another process on the same database (the CLI): its revocation
		// reaches the feed reads within the cache's time.
		other, err := serverdb.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		if err := other.RevokeStation(ctx, "Desk 1", h.Now.Unix()); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			st, out := read("qrd_test_desk1_new")
			if st == 403 && out["code"] == "revoked" {
				break
			}
			if st != 200 || time.Now().After(deadline) {
				t.Fatalf("a revocation by another process: %d %v after 15 s, want 403 revoked within the feed's cache time", st, out)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}
