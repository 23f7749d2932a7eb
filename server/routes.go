package server

import (
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"qrdesk/central"
	"qrdesk/protocol"
)

// MaxBody is the largest request body: a batch of 100,000 codes (8.7 MB of
// JSON) fits.
const MaxBody = 12 << 20

// API serves the /v1 HTTP+JSON API on a central.Store.
type API struct {
	Store central.Store
	// Feed, when set, is where the desks' download path reads (the feed
	// and the snapshot): a read replica of Store's database
	// (serverdb.Replica). Nil: Store.
	Feed central.FeedReader
	Log  *slog.Logger
	Now  func() time.Time
	// Metrics, when set, count requests and redemptions (metrics.go).
	Metrics *Metrics
	// Web serves every path the API does not (the dashboard), if set.
	Web http.Handler
	// Kinds are the event kinds this server decides and announces at
	// enrolment (nil: central.Kinds). An event of another kind is answered
	// "unsupported", alone. Tests name fewer to play an older server.
	Kinds []protocol.Kind
	// SnapshotPage is how many codes a snapshot page holds (0:
	// SnapshotPage); tests make it small to read snapshots of many pages.
	SnapshotPage int

	ring atomic.Value // the deployment's key-ring id once known: it never changes

	// oldDesksRefused: the roll-out window is closed, a protocol-1 desk is
	// refused on every request (olddesks.go).
	oldDesksRefused atomic.Bool

	tail     feedTail // the newest changes, for the desks that follow the feed
	stations stationCache
	versions deskVersions // what each desk last said it runs (deskversion.go)

	ackMu sync.Mutex
	acks  map[int64]central.FeedAck // station id → how far it read the feed, not yet stored

	// AccessLog says which requests the access log writes (accesslog.go);
	// "": AccessLogSampled.
	AccessLog AccessLog
	sampler   accessSampler

	probe     writeProbe // the readiness check's last write (ready.go)
	lastWrite lastWrite  // how the desks' last writes went (ready.go)
	ready     readiness  // what the readiness check last logged (ready.go)

}

// feed is where the desks' download path reads: Feed, or Store.
func (a *API) feed() central.FeedReader {
	if a.Feed != nil {
		return a.Feed
	}
	return a.Store
}

// Handler returns the routes, with access logging.
func (a *API) Handler() http.Handler {
	a.tail.store = a.feed()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", a.health)
	mux.HandleFunc("GET /readyz", a.readyz)
	if a.Metrics != nil && !a.Metrics.Separate {
		mux.Handle("GET /metrics", a.Metrics)
	}
	mux.HandleFunc("POST /v1/enrol", a.station(a.enrol))
	mux.HandleFunc("POST /v1/batches", a.station(a.writes(a.batches)))
	mux.HandleFunc("POST /v1/redeem", a.cachedStation(a.writes(a.redeem)))
	mux.HandleFunc("POST /v1/events", a.decidingStation(a.writes(a.events)))
	mux.HandleFunc("GET /v1/changes", a.feedStation(a.changes))
	mux.HandleFunc("GET /v1/conflicts", a.station(a.conflicts))
	mux.HandleFunc("GET /v1/snapshot", a.station(a.snapshot))
	mux.HandleFunc("POST /v1/status", a.station(a.status))
	if a.Web != nil {
		mux.Handle("/", a.Web)
	}
	return a.accessLog(mux)
}

type statusWriter struct {
	http.ResponseWriter
	status int
	// writeFailed: the answer is the database refusing a write (a
	// *central.WriteFailure), counted in the metrics by its cause.
	writeFailed string
}

func (w *statusWriter) WriteHeader(code int) { w.status = code; w.ResponseWriter.WriteHeader(code) }

// accessLog writes one line per request: never the token or the body.
func (a *API) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w.Header().Set(protocol.Header, strconv.Itoa(protocol.Version))
		// The server's clock on every answer: desks measure theirs by it.
		if a.Now != nil {
			w.Header().Set(protocol.TimeHeader, strconv.FormatInt(a.Now().UnixMilli(), 10))
		}
		sw := &statusWriter{ResponseWriter: w, status: 200}
		next.ServeHTTP(sw, r)
		a.Metrics.observe(r.Pattern, sw.status, time.Since(start)) // the mux set r.Pattern
		if sw.writeFailed != "" {
			a.Metrics.writeFailed(r.Pattern, sw.writeFailed)
		}
		ok, skipped := a.sampler.admit(a.AccessLog, r.Pattern, sw.status, time.Now())
		if !ok {
			a.Metrics.accessLineSkipped(r.Pattern)
			return
		}
		attrs := []any{"method", r.Method, "path", r.URL.Path, "status", sw.status,
			"duration_ms", float64(time.Since(start).Microseconds()) / 1000, "remote", r.RemoteAddr}
		if skipped > 0 {
			attrs = append(attrs, "skipped", skipped)
		}
		a.Log.Info("request", attrs...)
	})
}

func (a *API) health(w http.ResponseWriter, r *http.Request) {
	ring, err := a.Store.RingID(r.Context())
	a.write(w, map[string]any{"status": "ok", "enrolled": ring != "", "time": a.Now().Unix()}, err)
}
