package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"qrdesk/central"
	"qrdesk/server"
)

// serverDB is what serve needs of the database: the API's store and what
// the metrics read at a scrape.
type serverDB interface {
	central.Store
	server.MetricsSource
}

// serveMetrics serves /metrics on its own address (--metrics-listen), so a
// site can keep it off the address the desks reach (m.Separate is set, so
// the API's listener does not serve it). It runs until ctx ends.
func serveMetrics(ctx context.Context, m *server.Metrics, addr string, log *slog.Logger) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen for metrics on %s (is another server running there?): %w", addr, err)
	}
	log.Info("metrics listening", "addr", ln.Addr().String())
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener failed", "error", err.Error())
		}
	}()
	return nil
}
