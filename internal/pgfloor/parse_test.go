package pgfloor

import (
	"strings"
	"testing"
	"time"
)

// TestParse reads pgbench 15's summary, and refuses one with failed
// transactions or none at all.
func TestParse(t *testing.T) {
	const summary = `transaction type: redeem.sql
scaling factor: 1
query mode: prepared
number of clients: 64
number of threads: 2
maximum number of tries: 1
number of transactions per client: 300
number of transactions actually processed: 19200/19200
number of failed transactions: %s (0.000%%)
latency average = 49.566 ms
initial connection time = 120.042 ms
tps = 1291.238683 (without initial connection time)
`
	r, err := parse(strings.Replace(summary, "%s", "0", 1))
	if err != nil {
		t.Fatal(err)
	}
	if r.Transactions != 19200 || r.TPS != 1291.238683 || r.LatencyAvg != time.Duration(49.566*float64(time.Millisecond)) {
		t.Errorf("got %+v, want 19200 transactions, 1291.238683 TPS, 49.566 ms", r)
	}
	if _, err := parse(strings.Replace(summary, "%s", "3", 1)); err == nil || !strings.Contains(err.Error(), "3 transactions failed") {
		t.Errorf("failed transactions: got %v, want an error naming them", err)
	}
	if _, err := parse("pgbench: error: connection refused"); err == nil || !strings.Contains(err.Error(), "no summary") {
		t.Errorf("no summary: got %v, want an error", err)
	}
}
