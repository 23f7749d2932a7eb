package server

import (
	"context"
	"database/sql"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"qrdesk/central"
	"qrdesk/protocol"
)

// MetricsSource is what the metrics read from the database at a scrape.
type MetricsSource interface {
	Activity(ctx context.Context) (central.Activity, error)
	Engine() string
	PoolStats() sql.DBStats
}

// Metrics are the server's Prometheus metrics, on a registry of their own
// (the global one would collect whatever a dependency registers). A nil
// *Metrics counts nothing, so the API works without them.
type Metrics struct {
	// Separate says /metrics is served on its own listener
	// (--metrics-listen), not on the API's.
	Separate bool

	reg         *prometheus.Registry
	handler     http.Handler
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	redemptions *prometheus.CounterVec
	writeFails  *prometheus.CounterVec
	accessSkips *prometheus.CounterVec
	oldDesks    *prometheus.CounterVec
	wrongRing   prometheus.Counter
	certExpiry  prometheus.Gauge

	certOnce sync.Once

	seenMu sync.Mutex
	seen   map[int64]int64 // station id → Unix time of its last request to this process
	outbox map[int64]int   // station id → events waiting at the desk, by its latest report to this process
	proto  map[int64]int   // station id → the protocol of its latest request to this process
	// oldest: station id → when (the server's clock, Unix seconds) the
	// oldest event waiting at the desk was made, by its latest report; 0 or
	// absent: none waits.
	oldest map[int64]int64
	// clock: station id → the desk's clock offset (ms, the server's clock
	// ahead of the desk's) its latest event to this process carried.
	clock map[int64]int64
}

// DeskOnlineWithin is how recently a desk must have been heard from to
// count as online: a desk that is online polls the feed at least every
// 25 s (MaxWait), and syncs at least every minute.
const DeskOnlineWithin = 2 * time.Minute

// NewMetrics registers the server's metrics. now is the server's clock
// (for the desks' last-seen ages).
func NewMetrics(src MetricsSource, now func() time.Time) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "qrdesk_http_requests_total",
			Help: "HTTP requests answered, by route (the pattern, never the raw path) and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "qrdesk_http_request_duration_seconds",
			Help: "Time to answer an HTTP request, by route (long polls of the feed wait up to 25 s).",
			// From a sub-millisecond redemption to a long poll held 25 s.
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"route"}),
		redemptions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "qrdesk_redemptions_total",
			Help: "Redemptions this server decided, by outcome, whether the desk asked online or uploaded a decision it made offline, and the desk's site (repeats of an event already decided are not counted).",
		}, []string{"outcome", "via", "site"}),
		writeFails: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "qrdesk_db_write_failures_total",
			Help: "Requests the server answered 503 because its database refused a write, by route and cause (read_only, disk_full, no_permission, disk_error, other).",
		}, []string{"route", "cause"}),
		accessSkips: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "qrdesk_access_log_skipped_total",
			Help: "Requests answered well that the sampled access log left out (--access-log sampled writes every error and one line a second per route), by route.",
		}, []string{"route"}),
		wrongRing: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "qrdesk_key_ring_mismatches_total",
			Help: "Requests refused because the desk's key ring differs from the deployment's (a desk set up with another key file).",
		}),
		certExpiry: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "qrdesk_tls_certificate_expiry_timestamp_seconds",
			Help: "When the TLS certificate the server serves with expires (Unix seconds); absent without TLS.",
		}),
		oldDesks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "qrdesk_old_desk_requests_total",
			Help: "Requests of desks from before protocol versions (the first releases), by route and answer: served (their online redemptions, during the roll-out window) or refused (426: upgrade qrdesk at the desk).",
		}, []string{"route", "answer"}),
		seen:   map[int64]int64{},
		outbox: map[int64]int{},
		oldest: map[int64]int64{},
		clock:  map[int64]int64{},
		proto:  map[int64]int{},
	}
	m.reg.MustRegister(m.requests, m.latency, m.redemptions, m.writeFails, m.accessSkips, m.oldDesks, m.wrongRing,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&stateCollector{src: src, now: now, m: m},
		newPoolCollector(src))
	if wr, ok := src.(WebhookReporter); ok {
		m.reg.MustRegister(&webhookCollector{r: wr, now: now})
	}
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return m
}

// ServeHTTP serves the metrics in the Prometheus text format.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.handler.ServeHTTP(w, r) }

// observe counts one answered request. The route is the mux pattern that
// matched: a path with a code or a scanner's garbage in it never becomes a
// label of its own.
func (m *Metrics) observe(pattern string, status int, took time.Duration) {
	if m == nil {
		return
	}
	pattern = routeLabel(pattern)
	m.requests.WithLabelValues(pattern, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(pattern).Observe(took.Seconds())
}

// countRedemptions counts the redemptions among evs by their results
// (res[i] answers evs[i]), under site, the site of the desk that sent them.
func (m *Metrics) countRedemptions(site string, evs []protocol.Event, res []protocol.Result) {
	if m == nil {
		return
	}
	for i, r := range res {
		if i >= len(evs) || evs[i].Kind != protocol.KindRedeem || r.Duplicate {
			continue
		}
		via := "online"
		if evs[i].Offline {
			via = "offline"
		}
		m.redemptions.WithLabelValues(string(r.Outcome), via, site).Inc()
	}
}

// writeFailed counts a request failed by the database refusing a write.
func (m *Metrics) writeFailed(pattern, cause string) {
	if m == nil {
		return
	}
	m.writeFails.WithLabelValues(pattern, cause).Inc()
}

// accessLineSkipped counts a request the sampled access log left out.
func (m *Metrics) accessLineSkipped(pattern string) {
	if m == nil {
		return
	}
	m.accessSkips.WithLabelValues(routeLabel(pattern)).Inc()
}

// routeLabel is a request's route as the metrics label it: the mux's
// pattern, or "unmatched" for a path no route took.
func routeLabel(pattern string) string {
	if pattern == "" {
		return "unmatched"
	}
	return pattern
}

// sawDesk records that a station made an authenticated request.
func (m *Metrics) sawDesk(station, at int64) {
	if m == nil {
		return
	}
	m.seenMu.Lock()
	m.seen[station] = at
	m.seenMu.Unlock()
}

func (m *Metrics) lastSeen(station int64) int64 {
	m.seenMu.Lock()
	defer m.seenMu.Unlock()
	return m.seen[station]
}

// deskReported records the events waiting in a desk's outbox, as it
// reported them (POST /v1/status), and when the oldest of them was made
// (oldestAt, the server's clock; 0: the desk did not say).
func (m *Metrics) deskReported(station int64, waiting int, oldestAt int64) {
	if m == nil {
		return
	}
	m.seenMu.Lock()
	m.outbox[station] = waiting
	m.oldest[station] = oldestAt
	if waiting == 0 {
		m.oldest[station] = 0
	}
	m.seenMu.Unlock()
}

func (m *Metrics) deskOldestWaiting(station int64) int64 {
	m.seenMu.Lock()
	defer m.seenMu.Unlock()
	return m.oldest[station]
}

// deskClock records the clock offset the latest of evs carries (events
// from before offsets, or of a desk not measured yet, carry none).
func (m *Metrics) deskClock(station int64, evs []protocol.Event) {
	if m == nil {
		return
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if off := evs[i].ClockOffsetMS; off != nil {
			m.seenMu.Lock()
			m.clock[station] = *off
			m.seenMu.Unlock()
			return
		}
	}
}

// deskClockOnline records the clock offset an online scan shows: the
// desk's time of the scan (at, its clock) against this server's time of
// its arrival, a second or less later. A desk that only works online
// sends no measured offset (its outbox is empty), yet its clock may be a
// day off.
func (m *Metrics) deskClockOnline(station, at int64, now time.Time) {
	if m == nil || at <= 0 {
		return
	}
	m.seenMu.Lock()
	m.clock[station] = (at - now.Unix()) * 1000
	m.seenMu.Unlock()
}

func (m *Metrics) deskClockOffset(station int64) (int64, bool) {
	m.seenMu.Lock()
	defer m.seenMu.Unlock()
	off, ok := m.clock[station]
	return off, ok
}

// ringMismatch counts a request refused for its desk's key ring.
func (m *Metrics) ringMismatch() {
	if m == nil {
		return
	}
	m.wrongRing.Inc()
}

// SetCertificateExpiry exports when the served TLS certificate expires.
func (m *Metrics) SetCertificateExpiry(notAfter time.Time) {
	if m == nil {
		return
	}
	m.certExpiry.Set(float64(notAfter.Unix()))
	m.certOnce.Do(func() { m.reg.MustRegister(m.certExpiry) })
}

func (m *Metrics) deskOutbox(station int64) int {
	m.seenMu.Lock()
	defer m.seenMu.Unlock()
	return m.outbox[station]
}

// deskProtocol records the protocol a station's desk spoke in its latest
// request.
func (m *Metrics) deskProtocol(station int64, protocol int) {
	if m == nil {
		return
	}
	m.seenMu.Lock()
	m.proto[station] = protocol
	m.seenMu.Unlock()
}

func (m *Metrics) protocolOf(station int64) int {
	m.seenMu.Lock()
	defer m.seenMu.Unlock()
	return m.proto[station]
}

// oldDeskRequest counts a request of a desk from before protocol
// versions, served or refused.
func (m *Metrics) oldDeskRequest(pattern string, served bool) {
	if m == nil {
		return
	}
	answer := "refused"
	if served {
		answer = "served"
	}
	m.oldDesks.WithLabelValues(routeLabel(pattern), answer).Inc()
}
