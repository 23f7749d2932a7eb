package server

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// readyTimeout bounds the readiness check's queries: a database that takes
// longer is as good as unreachable to the desks, whose scans wait 1 s.
const readyTimeout = 2 * time.Second

// probeEvery is how often the readiness check writes to the database at
// most: a load balancer polling every 100 ms costs ten writes a second,
// not a write per poll.
const probeEvery = time.Second

// writeProbe remembers the last write probe's result (see readyz).
type writeProbe struct {
	mu  sync.Mutex
	at  time.Time
	err error
}

// readyz says whether the server can serve desks now: 200 when the
// database answers a query and takes a write (a one-row update, at most
// once a second), 503 with the reason when it does not (in general terms:
// the details are in the log). A load balancer or
// Kubernetes takes a not-ready server out of rotation; /v1/health only
// says the process is alive.
func (a *API) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	notReady := func(msg string) {
		w.WriteHeader(http.StatusServiceUnavailable)
		json.NewEncoder(w).Encode(map[string]string{"status": "not ready", "error": msg})
	}
	// The answer needs no credentials: the driver's error (which can name
	// the database, its user, host and port) goes to the log only.
	if err := a.Store.Ping(ctx); err != nil {
		a.Log.Warn("not ready: the database does not answer", "error", err.Error())
		notReady("the database does not answer")
		return
	}
	if err := a.probeWrite(ctx); err != nil {
		a.Log.Warn("not ready: the database takes no writes", "error", err.Error())
		notReady("the database takes no writes")
		return
	}
	json.NewEncoder(w).Encode(map[string]string{"status": "ready"})
}

// probeWrite writes to the database unless a probe ran within probeEvery,
// whose result it returns then. The wall clock, not a.Now: a test's
// pinned clock would never let the probe run again.
func (a *API) probeWrite(ctx context.Context) error {
	a.probe.mu.Lock()
	defer a.probe.mu.Unlock()
	if !a.probe.at.IsZero() && time.Since(a.probe.at) < probeEvery {
		return a.probe.err
	}
	a.probe.err = a.Store.ProbeWrite(ctx, a.Now().Unix())
	a.probe.at = time.Now()
	return a.probe.err
}
