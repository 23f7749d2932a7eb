package server

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"qrdesk/central"
	"qrdesk/store"
)

// BenchmarkMetricsPerRequest is what the metrics add to one online
// redemption: the desk seen, the request counted and timed, the outcome
// counted (docs/performance.md compares it with the request itself).
func BenchmarkMetricsPerRequest(b *testing.B) {
	db, err := store.OpenCentral(context.Background(), filepath.Join(b.TempDir(), "server.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	m := NewMetrics(db, time.Now)
	evs := []central.Event{{Kind: central.KindRedeem}}
	res := []central.Result{{Outcome: central.OutcomeRedeemed}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.sawDesk(7, 1_795_000_000)
			m.countRedemptions(evs, res)
			m.observe("POST /v1/redeem", 200, 3*time.Millisecond)
		}
	})
}
