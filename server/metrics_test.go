package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"qrdesk/central"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// scrape reads /metrics with the Prometheus text parser (what Prometheus
// itself runs on the page) and fails on anything it refuses.
func scrape(t testing.TB, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return fams
}

// value is the value of the series of name whose labels include want
// (-1 when there is none).
func value(fams map[string]*dto.MetricFamily, name string, want ...string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
series:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(want); i += 2 {
			if have[want[i]] != want[i+1] {
				continue series
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

// engineName is the db_name the pool metrics carry in a testpg.Engines subtest.
func engineName(t *testing.T) string {
	if strings.Contains(t.Name(), "PostgreSQL") {
		return "postgresql"
	}
	return "sqlite"
}

// TestMetricsCountWhatHappened: /metrics needs no token, parses with the
// Prometheus text parser, and counts redemptions made through the API by
// outcome (a repeat not again), requests by route pattern (never a raw
// path), conflicts, the feed position, the desks by state and the pool.
func TestMetricsCountWhatHappened(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 5)
		a, b := h.Station(t, "Desk 1", "A"), h.Station(t, "Desk 2", "B")
		h.Station(t, "Desk 3", "C") // enrolled, never connects
		h.Station(t, "Desk 4", "D")
		if err := h.DB.RevokeStation(context.Background(), "Desk 4", h.Now.Unix()); err != nil {
			t.Fatal(err)
		}
		before := scrape(t, h.URL)
		if got := value(before, "qrdesk_redemptions_total", "outcome", "redeemed"); got > 0 {
			t.Fatalf("redemptions counted before any: %v", got)
		}

		h.Upload(t, a)
		var r protocol.Result
		online := protocol.Event{EventID: "metrics-online-1", Code: h.Codes[0], Operator: "li", At: h.Now.Unix()}
		h.Call(t, "POST", "/v1/redeem", a, h.Ring, online, &r)
		if r.Outcome != "redeemed" {
			t.Fatalf("redeem: %+v", r)
		}
		h.Call(t, "POST", "/v1/redeem", a, h.Ring, online, &r) // the same event again: a repeat
		h.Call(t, "POST", "/v1/redeem", b, h.Ring, protocol.Event{EventID: "metrics-online-2", Code: h.Codes[0], Operator: "wang", At: h.Now.Unix()}, &r)
		if r.Outcome != "already_used" {
			t.Fatalf("second desk: %+v", r)
		}
		// The same label redeemed at both desks while offline: a conflict.
		for _, tc := range []struct {
			token, id string
		}{{a, "metrics-offline-a"}, {b, "metrics-offline-b"}} {
			h.Call(t, "POST", "/v1/events", tc.token, h.Ring, map[string]any{"events": []protocol.Event{
				{EventID: tc.id, Kind: "redeem", Code: h.Codes[1], Operator: "op", At: h.Now.Unix() - 60, Offline: true}}}, nil)
		}
		var feed struct{ Next int64 }
		h.Call(t, "GET", "/v1/changes?after=0", a, h.Ring, nil, &feed)
		// A path with a label in it matches no API route: it is counted
		// under a pattern ("unmatched", or the dashboard's "/"), never as
		// a series of its own (checked below with every label).
		h.Call(t, "GET", "/v1/codes/"+h.Codes[2], a, h.Ring, nil, nil)

		after := scrape(t, h.URL)
		for _, tc := range []struct {
			name   string
			labels []string
			want   float64
		}{
			{"qrdesk_redemptions_total", []string{"outcome", "redeemed", "via", "online"}, 1},
			{"qrdesk_redemptions_total", []string{"outcome", "already_used", "via", "online"}, 1},
			{"qrdesk_redemptions_total", []string{"outcome", "redeemed", "via", "offline"}, 1},
			{"qrdesk_redemptions_total", []string{"outcome", "conflict", "via", "offline"}, 1},
			{"qrdesk_http_requests_total", []string{"route", "POST /v1/redeem", "status", "200"}, 3},
			{"qrdesk_http_requests_total", []string{"route", "POST /v1/events", "status", "200"}, 2},
			{"qrdesk_http_request_duration_seconds", []string{"route", "POST /v1/redeem"}, 3},
			{"qrdesk_conflicts", nil, 1},
			{"qrdesk_feed_position", nil, float64(feed.Next)},
			{"qrdesk_database_up", nil, 1},
			{"qrdesk_events_waiting", nil, 0},
			{"qrdesk_desks", []string{"state", "online"}, 2},
			{"qrdesk_desks", []string{"state", "never_seen"}, 1},
			{"qrdesk_desks", []string{"state", "revoked"}, 1},
			{"qrdesk_desk_last_seen_age_seconds", nil, 2},
			{"go_sql_max_open_connections", []string{"db_name", engineName(t)}, 32},
		} {
			if got := value(after, tc.name, tc.labels...); got != tc.want {
				t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
			}
		}
		if feed.Next < int64(len(h.Codes)) {
			t.Errorf("feed position %d, want at least the %d uploaded codes", feed.Next, len(h.Codes))
		}
		for name, f := range after {
			for _, m := range f.Metric {
				for _, l := range m.Label {
					if strings.Contains(l.GetValue(), h.Codes[2]) || strings.Contains(l.GetValue(), "Desk") {
						t.Errorf("%s has a label %s=%q: a code or a desk name per series", name, l.GetName(), l.GetValue())
					}
				}
			}
		}

		// Ten minutes later, with no request since, both desks are offline.
		h.Now = h.Now.Add(10 * time.Minute)
		later := scrape(t, h.URL)
		if on, off := value(later, "qrdesk_desks", "state", "online"), value(later, "qrdesk_desks", "state", "offline"); on != 0 || off != 2 {
			t.Errorf("ten minutes later: %v online, %v offline; want 0 and 2", on, off)
		}
	})
}

// TestMetricsBySite: in a deployment of two sites, redemptions are counted
// under the site of the desk that decided them, conflicts under their
// label's site, desks by state and outboxes under the desks' sites; every
// site has its series (0 when nothing happened there), the sites add up
// to the deployment, and no other value of site appears.
func TestMetricsBySite(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 4)
		if err := h.DB.RenameSite(ctx, "main", "North"); err != nil {
			t.Fatal(err)
		}
		if err := h.DB.AddSite(ctx, "South", 1); err != nil {
			t.Fatal(err)
		}
		north, south := h.Station(t, "Desk 1", "A"), h.Station(t, "Desk 2", "B")
		h.Station(t, "Desk 3", "C") // South, never connects
		h.Station(t, "Desk 4", "D") // North, revoked
		for _, name := range []string{"Desk 2", "Desk 3"} {
			if err := h.DB.SetStationSite(ctx, name, "South"); err != nil {
				t.Fatal(err)
			}
		}
		if err := h.DB.RevokeStation(ctx, "Desk 4", h.Now.Unix()); err != nil {
			t.Fatal(err)
		}
		h.Upload(t, north) // North's labels
		var r protocol.Result
		h.Call(t, "POST", "/v1/redeem", south, h.Ring, protocol.Event{EventID: "site-online-1", Code: h.Codes[0], Operator: "wang", At: h.Now.Unix()}, &r)
		if r.Outcome != "redeemed" {
			t.Fatalf("South redeeming North's label: %+v", r)
		}
		h.Call(t, "POST", "/v1/redeem", north, h.Ring, protocol.Event{EventID: "site-online-2", Code: h.Codes[0], Operator: "li", At: h.Now.Unix()}, &r)
		if r.Outcome != "already_used" {
			t.Fatalf("North redeeming it again: %+v", r)
		}
		// North's label codes[1] redeemed offline at Desk 2 (South) first,
		// then at Desk 1 (North): a conflict of a label of North.
		for _, tc := range []struct{ token, id string }{{south, "site-offline-2"}, {north, "site-offline-1"}} {
			h.Call(t, "POST", "/v1/events", tc.token, h.Ring, map[string]any{"events": []protocol.Event{
				{EventID: tc.id, Kind: "redeem", Code: h.Codes[1], Operator: "op", At: h.Now.Unix() - 60, Offline: true}}}, nil)
		}
		if st := h.Call(t, "POST", "/v1/status", south, h.Ring, central.StatusReport{Date: h.Now.Format("2006-01-02"), EventsWaiting: 4, At: h.Now.Unix()}, nil); st != 200 {
			t.Fatalf("Desk 2's report: %d", st)
		}

		fams := scrape(t, h.URL)
		for _, tc := range []struct {
			name   string
			labels []string
			want   float64
		}{
			{"qrdesk_redemptions_total", []string{"outcome", "redeemed", "via", "online", "site", "South"}, 1},
			{"qrdesk_redemptions_total", []string{"outcome", "already_used", "via", "online", "site", "North"}, 1},
			{"qrdesk_redemptions_total", []string{"outcome", "redeemed", "via", "offline", "site", "South"}, 1},
			{"qrdesk_redemptions_total", []string{"outcome", "conflict", "via", "offline", "site", "North"}, 1},
			{"qrdesk_redemptions_total", []string{"outcome", "redeemed", "via", "online", "site", "North"}, -1},
			{"qrdesk_conflicts", []string{"site", "North"}, 1},
			{"qrdesk_conflicts", []string{"site", "South"}, 0},
			{"qrdesk_desks", []string{"state", "online", "site", "North"}, 1},
			{"qrdesk_desks", []string{"state", "online", "site", "South"}, 1},
			{"qrdesk_desks", []string{"state", "never_seen", "site", "South"}, 1},
			{"qrdesk_desks", []string{"state", "never_seen", "site", "North"}, 0},
			{"qrdesk_desks", []string{"state", "revoked", "site", "North"}, 1},
			{"qrdesk_desks", []string{"state", "revoked", "site", "South"}, 0},
			{"qrdesk_desk_outbox_events", []string{"site", "South"}, 4},
			{"qrdesk_desk_outbox_events", []string{"site", "North"}, 0},
			{"qrdesk_desk_last_seen_age_seconds", nil, 2},
		} {
			if got := value(fams, tc.name, tc.labels...); got != tc.want {
				t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
			}
		}
		for name, f := range fams {
			for _, m := range f.Metric {
				for _, l := range m.Label {
					if l.GetName() == "site" && l.GetValue() != "North" && l.GetValue() != "South" {
						t.Errorf("%s has site %q", name, l.GetValue())
					}
				}
			}
		}
		// The sites add up to the deployment.
		total := func(name string) (n float64) {
			for _, m := range fams[name].Metric {
				n += m.GetGauge().GetValue()
			}
			return n
		}
		if n := total("qrdesk_conflicts"); n != 1 {
			t.Errorf("conflicts over the sites: %v, want 1", n)
		}
		if n := total("qrdesk_desks"); n != 4 {
			t.Errorf("desks over the sites and states: %v, want 4", n)
		}
		if f := fams["qrdesk_desk_last_seen_age_seconds"]; len(f.Metric) != 1 {
			t.Errorf("the last-seen histogram has %d series, want one for the deployment", len(f.Metric))
		}
	})
}
