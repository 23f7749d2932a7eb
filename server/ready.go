package server

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// readyTimeout bounds the readiness check's query: a database that takes
// longer is as good as unreachable to the desks, whose scans wait 1 s.
const readyTimeout = 2 * time.Second

// readyz says whether the server can serve desks now: 200 when the
// database answers a query, 503 with the reason when it does not. A load
// balancer or Kubernetes takes a not-ready server out of rotation;
// /v1/health only says the process is alive.
func (a *API) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := a.Store.Ping(ctx); err != nil {
		a.Log.Warn("not ready: the database does not answer", "error", err.Error())
		w.WriteHeader(http.StatusServiceUnavailable)
		json.NewEncoder(w).Encode(map[string]string{"status": "not ready",
			"error": "the database does not answer: " + err.Error()})
		return
	}
	json.NewEncoder(w).Encode(map[string]string{"status": "ready"})
}
