package server

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"qrdesk/central"
	"qrdesk/protocol"
	"qrdesk/serverdb"
)

// BenchmarkMetricsPerRequest is what the metrics add to one online
// redemption: the desk seen, the request counted and timed, the outcome
// counted (docs/performance.md compares it with the request itself).
func BenchmarkMetricsPerRequest(b *testing.B) {
	db, err := serverdb.Open(context.Background(), filepath.Join(b.TempDir(), "server.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	m := NewMetrics(db, time.Now)
	evs := []protocol.Event{{Kind: protocol.KindRedeem}}
	res := []protocol.Result{{Outcome: protocol.OutcomeRedeemed}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.sawDesk(7, 1_795_000_000)
			m.countRedemptions(central.DefaultSite, evs, res)
			m.observe("POST /v1/redeem", 200, 3*time.Millisecond)
		}
	})
}

// TestUnmatchedRequestsShareOneRoute: a request no pattern matched (the
// mux leaves r.Pattern empty) is counted under route "unmatched", so
// scanners' garbage and probes of random paths add no series.
func TestUnmatchedRequestsShareOneRoute(t *testing.T) {
	db, err := serverdb.Open(context.Background(), filepath.Join(t.TempDir(), "server.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := NewMetrics(db, time.Now)
	m.observe("", 404, time.Millisecond)
	m.observe("", 405, time.Millisecond)
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]int{}
	for _, f := range fams {
		if f.GetName() != "qrdesk_http_requests_total" {
			continue
		}
		for _, s := range f.Metric {
			for _, l := range s.Label {
				if l.GetName() == "route" {
					routes[l.GetValue()] += int(s.Counter.GetValue())
				}
			}
		}
	}
	if len(routes) != 1 || routes["unmatched"] != 2 {
		t.Fatalf("routes counted: %v, want unmatched: 2", routes)
	}
}
