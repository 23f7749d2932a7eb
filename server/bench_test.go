package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"qrdesk/internal/centraltest"
	"qrdesk/internal/pgfloor"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/server"
	"qrdesk/serverdb"
)

// BenchmarkServerRedeem64 sends online redemptions through the HTTP API
// from 64 desks on loopback, each a station of its own with its own token
// and one request at a time, as real desks are (goal on PostgreSQL: the
// pgbench floor's rate, p99 ≤ 20 ms). On PostgreSQL it first runs the
// floor (internal/pgfloor: pgbench, 64 clients, the bare redemption
// transaction on the server's tables) on the same cluster, and reports
// ours over it (x_floor). The "2 servers" run splits the desks over two
// server processes' handlers on the same PostgreSQL database, each with
// its own connection pool. QRDESK_PG_DURABLE=1 turns fsync and
// synchronous_commit on in the test cluster, as in production.
func BenchmarkServerRedeem64(b *testing.B) {
	b.Run("SQLite", func(b *testing.B) { benchRedeem(b, "SQLite", 1, 64) })
	b.Run("PostgreSQL", func(b *testing.B) { benchRedeem(b, "PostgreSQL", 1, 64) })
	b.Run("PostgreSQL/2 servers", func(b *testing.B) { benchRedeem(b, "PostgreSQL", 2, 64) })
}

// BenchmarkServerRedeemOneDesk64 is one desk sending 64 requests at once
// (64 clients, one station token), which no desk does: each station's
// events are numbered in order, so they queue on that station's counter.
// It was BenchmarkServerRedeem64 until 64 desks replaced it; kept so the
// figures before can be compared.
func BenchmarkServerRedeemOneDesk64(b *testing.B) {
	b.Run("SQLite", func(b *testing.B) { benchRedeem(b, "SQLite", 1, 1) })
	b.Run("PostgreSQL", func(b *testing.B) { benchRedeem(b, "PostgreSQL", 1, 1) })
	b.Run("PostgreSQL/2 servers", func(b *testing.B) { benchRedeem(b, "PostgreSQL", 2, 1) })
}

// benchRedeem redeems the harness's 20,000 labels online from 64 clients
// using the tokens of `stations` stations (client c uses station c mod
// stations) over `servers` server processes.
func benchRedeem(b *testing.B, engine string, servers, stations int) {
	const clients, labels = 64, 20_000
	path := b.TempDir() + "/server.DB"
	if engine == "PostgreSQL" {
		path = testpg.URL(b)
	}
	h := centraltest.New(b, func(testing.TB) string { return path }, labels)
	tokens := make([]string, stations)
	for i := range tokens {
		letter := ""
		if i == 0 {
			letter = "A" // the harness's labels carry A
		}
		tokens[i] = h.Station(b, fmt.Sprintf("Desk %d", i+1), letter)
	}
	h.Upload(b, tokens[0])
	urls := []string{h.URL}
	if servers == 2 {
		db2, err := serverdb.Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db2.Close() })
		srv2 := httptest.NewServer((&server.API{Store: db2, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return h.Now }}).Handler())
		b.Cleanup(srv2.Close)
		urls = append(urls, srv2.URL)
	}
	var floor pgfloor.Result
	if engine == "PostgreSQL" && servers == 1 {
		floor = runFloor(b, clients, labels/clients)
	}
	n := len(h.Codes)
	lat := make([]time.Duration, n)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			url, token := urls[c%len(urls)], tokens[c%stations]
			for i := c; i < n; i += clients {
				t0 := time.Now()
				var r protocol.Result
				h.CallURL(b, url, "POST", "/v1/redeem", token, h.Ring, protocol.Event{EventID: fmt.Sprintf("bench-%06d", i), Code: h.Codes[i], Operator: "op", At: 1}, &r)
				lat[i] = time.Since(t0)
				if r.Outcome != "redeemed" {
					b.Errorf("%s: %+v", h.Codes[i], r)
					return
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	rate := float64(n) / took.Seconds()
	b.ReportMetric(rate, "redeems/s")
	b.ReportMetric(float64(lat[n/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(lat[n*99/100].Microseconds())/1000, "p99_ms")
	if floor.TPS > 0 {
		b.ReportMetric(floor.TPS, "floor_tps")
		b.ReportMetric(rate/floor.TPS, "x_floor")
	}
}

// runFloor runs the pgbench floor in a database of its own on the test
// cluster, with the server's schema: clients connections, perClient
// redemptions each. Without pgbench it logs why and reports nothing.
func runFloor(b *testing.B, clients, perClient int) pgfloor.Result {
	b.Helper()
	if _, err := pgfloor.Bin(); err != nil {
		b.Logf("no floor: %v", err)
		return pgfloor.Result{}
	}
	url := testpg.URL(b)
	db, err := serverdb.Open(context.Background(), url) // the server's schema
	if err != nil {
		b.Fatal(err)
	}
	db.Close()
	if err := pgfloor.Prepare(context.Background(), url, clients, perClient); err != nil {
		b.Fatal(err)
	}
	r, err := pgfloor.Run(context.Background(), url, clients, perClient)
	if err != nil {
		b.Fatal(err)
	}
	return r
}
