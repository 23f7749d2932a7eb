package server_test

import (
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestOperationsMetrics: the metrics behind the operations table say what
// an operator must see at a glance. A desk that reports events waiting
// since ten minutes ago shows that age, growing with the server's clock;
// a desk whose events carry a clock five minutes off shows the offset; a
// desk with another key ring is counted when refused; desks silent for
// over an hour or a day are counted by site; the TLS certificate's expiry
// is exported. Both engines.
func TestOperationsMetrics(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 3)
		a, b := h.Station(t, "Desk 1", "A"), h.Station(t, "Desk 2", "B")
		h.Upload(t, a)
		report := central.StatusReport{Date: h.Now.Format("2006-01-02"), EventsWaiting: 3, At: h.Now.Unix(), OldestWaitingSeconds: 600}
		if st := h.Call(t, "POST", "/v1/status", a, h.Ring, report, nil); st != 200 {
			t.Fatalf("status: %d", st)
		}
		off := int64(-300_000) // the desk's clock 5 minutes ahead of the server's
		if st := h.Call(t, "POST", "/v1/events", b, h.Ring, map[string]any{"events": []protocol.Event{
			{EventID: "ops-clock-1", Kind: "redeem", Code: h.Codes[0], Operator: "li", At: h.Now.Unix() + 240, Offline: true, ClockOffsetMS: &off, ClockAge: 60}}}, nil); st != 200 {
			t.Fatalf("events: %d", st)
		}
		other := make([]byte, 8)
		rand.Read(other)
		if st := h.Call(t, "GET", "/v1/changes?after=0", a, hex.EncodeToString(other), nil, nil); st != 409 {
			t.Fatalf("a request with another key ring: %d, want 409", st)
		}
		expiry := time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)
		h.API.Metrics.SetCertificateExpiry(expiry)

		m := scrape(t, h.URL)
		for _, tc := range []struct {
			name   string
			labels []string
			want   float64
		}{
			{"qrdesk_desk_outbox_oldest_age_seconds", []string{"site", "main"}, 600},
			{"qrdesk_desk_outbox_events", []string{"site", "main"}, 3},
			{"qrdesk_desk_clock_offset_max_seconds", []string{"site", "main"}, 300},
			{"qrdesk_key_ring_mismatches_total", nil, 1},
			{"qrdesk_tls_certificate_expiry_timestamp_seconds", nil, float64(expiry.Unix())},
			{"qrdesk_desks_unseen", []string{"over", "15m", "site", "main"}, 0},
			{"qrdesk_backup_last_success_timestamp_seconds", nil, 0},
		} {
			if got := value(m, tc.name, tc.labels...); got != tc.want {
				t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
			}
		}

		// Two hours without a word from either desk.
		h.Now = h.Now.Add(2 * time.Hour)
		m = scrape(t, h.URL)
		for _, tc := range []struct {
			over string
			want float64
		}{{"15m", 2}, {"1h", 2}, {"24h", 0}} {
			if got := value(m, "qrdesk_desks_unseen", "over", tc.over, "site", "main"); got != tc.want {
				t.Errorf("two hours later: qrdesk_desks_unseen{over=%q} = %v, want %v", tc.over, got, tc.want)
			}
		}
		if got := value(m, "qrdesk_desk_outbox_oldest_age_seconds", "site", "main"); got != 600+7200 {
			t.Errorf("two hours later: oldest waiting %v s, want %v", got, 600+7200)
		}
		// The outbox emptied: nothing waits any more.
		report = central.StatusReport{Date: h.Now.Format("2006-01-02"), At: h.Now.Unix()}
		if st := h.Call(t, "POST", "/v1/status", a, h.Ring, report, nil); st != 200 {
			t.Fatalf("status: %d", st)
		}
		if got := value(scrape(t, h.URL), "qrdesk_desk_outbox_oldest_age_seconds", "site", "main"); got != 0 {
			t.Errorf("after an empty outbox's report: oldest waiting %v s, want 0", got)
		}
	})
}
