package server_test

import (
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"qrdesk/central"
	"qrdesk/internal/testpg"
)

// BenchmarkServerRedeem64 sends online redemptions through the HTTP API
// from 64 concurrent clients on loopback, on each storage engine (targets:
// ≥ 3,000/s and p99 ≤ 20 ms).
func BenchmarkServerRedeem64(b *testing.B) {
	for _, engine := range []string{"SQLite", "PostgreSQL"} {
		b.Run(engine, func(b *testing.B) {
			path := b.TempDir() + "/server.db"
			if engine == "PostgreSQL" {
				path = testpg.URL(b)
			}
			h := newCentral(b, func(testing.TB) string { return path }, 20_000)
			token := h.station(b, "Desk 1", "A")
			h.upload(b, token)
			const clients = 64
			n := len(h.codes)
			lat := make([]time.Duration, n)
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for c := 0; c < clients; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := c; i < n; i += clients {
						t0 := time.Now()
						var r central.Result
						h.call(b, "POST", "/v1/redeem", token, h.ring, central.Event{EventID: fmt.Sprintf("bench-%06d", i), Code: h.codes[i], Operator: "op", At: 1}, &r)
						lat[i] = time.Since(t0)
						if r.Outcome != "redeemed" {
							b.Errorf("%s: %+v", h.codes[i], r)
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
		})
	}
}
