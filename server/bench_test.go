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
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
	"qrdesk/server"
	"qrdesk/serverdb"
)

// BenchmarkServerRedeem64 sends online redemptions through the HTTP API
// from 64 concurrent clients on loopback, on each storage engine (bar:
// ≥ 3,000/s with p99 ≤ 50 ms; goal ≥ 5,000/s with p99 ≤ 20 ms). The
// "2 servers" run splits the clients over two server processes' handlers
// on the same PostgreSQL database, each with its own connection pool: a
// second process must not lower the throughput. QRDESK_PG_DURABLE=1 turns fsync
// and synchronous_commit on in the test cluster, as in production.
func BenchmarkServerRedeem64(b *testing.B) {
	for _, engine := range []string{"SQLite", "PostgreSQL"} {
		b.Run(engine, func(b *testing.B) { benchRedeem(b, engine, 1) })
		if engine == "PostgreSQL" { // one SQLite file is served by one process
			b.Run(engine+"/2 servers", func(b *testing.B) { benchRedeem(b, engine, 2) })
		}
	}
}

func benchRedeem(b *testing.B, engine string, servers int) {
	path := b.TempDir() + "/server.DB"
	if engine == "PostgreSQL" {
		path = testpg.URL(b)
	}
	h := centraltest.New(b, func(testing.TB) string { return path }, 20_000)
	token := h.Station(b, "Desk 1", "A")
	h.Upload(b, token)
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
	const clients = 64
	n := len(h.Codes)
	lat := make([]time.Duration, n)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			url := urls[c%len(urls)]
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
	b.ReportMetric(float64(n)/took.Seconds(), "redeems/s")
	b.ReportMetric(float64(lat[n/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(lat[n*99/100].Microseconds())/1000, "p99_ms")
}
