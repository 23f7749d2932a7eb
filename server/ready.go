package server

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"qrdesk/central"
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

// writeFailureHold is how long a desk's write the database refused keeps
// the server not ready, unless a later desk write goes through first. The
// probe's one-row update can pass on a full disk (PostgreSQL rewrites the
// row in its page) while every insert fails: the desks' own writes are
// the truth.
const writeFailureHold = 10 * time.Second

// lastWrite is how the desks' last writes went (writes and write).
type lastWrite struct {
	mu       sync.Mutex
	failedAt time.Time // the last refused write; zero once one went through after it
	err      error
}

// wroteOK records a desk's write that went through: the database takes
// writes again.
func (a *API) wroteOK() {
	a.lastWrite.mu.Lock()
	defer a.lastWrite.mu.Unlock()
	a.lastWrite.failedAt, a.lastWrite.err = time.Time{}, nil
}

// writeRefused records a desk's write the database refused.
func (a *API) writeRefused(err error) {
	a.lastWrite.mu.Lock()
	defer a.lastWrite.mu.Unlock()
	a.lastWrite.failedAt, a.lastWrite.err = time.Now(), err
}

// recentWriteFailure is the error of a desk's write refused within
// writeFailureHold and not followed by one that went through, or nil.
func (a *API) recentWriteFailure() error {
	a.lastWrite.mu.Lock()
	defer a.lastWrite.mu.Unlock()
	if a.lastWrite.err == nil || time.Since(a.lastWrite.failedAt) > writeFailureHold {
		return nil
	}
	return a.lastWrite.err
}

// readiness is why the server was last not ready, as logged: "" while
// ready. A load balancer asks every few seconds; the log says when the
// reason changes (not ready, ready again), not at every answer.
type readiness struct {
	mu     sync.Mutex
	reason string
}

// noteReady logs a change of readiness: reason is why the server is not
// ready ("" when it is), err the driver's error behind it.
func (a *API) noteReady(reason string, err error) {
	a.ready.mu.Lock()
	defer a.ready.mu.Unlock()
	was := a.ready.reason
	if reason == was {
		return
	}
	a.ready.reason = reason
	switch {
	case reason == "":
		a.Log.Info("ready again: the database answers and takes writes", "was", was)
	default:
		a.Log.Warn("not ready: "+reason, "error", err.Error())
	}
}

// readyz says whether the server can serve desks now: 200 when the
// database answers a query and takes a write (a one-row update, at most
// once a second), 503 with the reason when it does not (in general terms:
// the details are in the log, once when it starts failing and once when
// it recovers). A load balancer or
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
		a.noteReady("the database does not answer", err)
		notReady("the database does not answer")
		return
	}
	if err := a.probeWrite(ctx); err != nil {
		a.noteReady("the database takes no writes", err)
		notReady("the database takes no writes")
		return
	}
	if err := a.recentWriteFailure(); err != nil {
		a.noteReady("the database refused a desk's write", err)
		notReady("the database refused a desk's write")
		return
	}
	a.noteReady("", nil)
	answer := map[string]any{"status": "ready"}
	if rep, ok := a.Feed.(ReplicaReporter); ok {
		// The replica's state is a detail: the primary serves the desks
		// when the replica is down or behind, so the server stays ready.
		answer["replica"] = rep.ReplicaStatus(ctx)
	}
	if br, ok := a.Store.(BackupReporter); ok {
		// A failed backup does not stop the desks being served: the
		// server stays ready and says so beside it (why, with the paths
		// and the database's address, is in the backup's own log).
		if b, err := br.BackupRecord(ctx); err == nil && b.Failed() {
			answer["backup"] = "the last backup failed at " + time.Unix(b.LastFailure, 0).UTC().Format(time.RFC3339) + " (journalctl -u qrdesk-server-backup says why)"
		}
	}
	json.NewEncoder(w).Encode(answer)
}

// BackupReporter is a store that keeps the record of its backups
// (serverdb.DB): /readyz says when the latest failed.
type BackupReporter interface {
	BackupRecord(ctx context.Context) (central.BackupRecord, error)
}

// ReplicaReporter is a feed reader on a read replica that says how it
// fares (serverdb.Replica): /readyz and /metrics report it.
type ReplicaReporter interface {
	ReplicaStatus(ctx context.Context) central.ReplicaStatus
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
