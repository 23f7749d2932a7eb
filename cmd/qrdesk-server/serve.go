package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"qrdesk/internal/plaintext"
	"qrdesk/server"
	"qrdesk/serverdb"
	"qrdesk/web"
	"qrdesk/webhook"
)

var serveCommand = command{
	summary: "serve the desks' API, the dashboard and /metrics (the default)",
	usage: `say:
  serve --db PATH --listen ADDR [--tls-cert F --tls-key F] [--metrics-listen ADDR]
        [--access-log sampled|all|errors] [--old-desks redeem|refuse]
        [--replica-url postgres://… [--replica-max-lag 5s]] [--cpuprofile FILE]`,
	flags: serveFlags,
}

// serveOptions are serve's flags.
type serveOptions struct {
	listen, cert, key, metricsListen string
	accessLog, oldDesks, replicaURL  string
	replicaMaxLag                    time.Duration
	cpuProfile                       string
}

func serveFlags(fs *flag.FlagSet) action {
	var o serveOptions
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8427", "address to serve on")
	fs.StringVar(&o.cert, "tls-cert", "", "TLS certificate (PEM); with --tls-key serves HTTPS")
	fs.StringVar(&o.key, "tls-key", "", "TLS private key (PEM)")
	fs.StringVar(&o.metricsListen, "metrics-listen", "", "serve /metrics on this address instead of --listen's")
	fs.StringVar(&o.accessLog, "access-log", envOr("QRDESK_SERVER_ACCESS_LOG", string(server.AccessLogSampled)), "which requests the log writes: sampled (every error, one line a second per route of the rest), all, or errors")
	fs.StringVar(&o.oldDesks, "old-desks", envOr("QRDESK_SERVER_OLD_DESKS", "redeem"), "desks of a release from before protocol versions (the first releases): redeem (the roll-out window: the server decides their scans online, refuses the rest) or refuse (every request, once every desk is upgraded)")
	fs.StringVar(&o.replicaURL, "replica-url", os.Getenv("QRDESK_SERVER_REPLICA_URL"), "read the desks' feed and snapshots from this streaming read replica of the PostgreSQL --db (postgres://…)")
	fs.DurationVar(&o.replicaMaxLag, "replica-max-lag", serverdb.DefaultReplicaMaxLag, "read the feed from the primary while the replica lacks changes older than this")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write the server's CPU profile to this file until it stops (read it with 'go tool pprof FILE')")
	return func(ctx context.Context, inv *invocation) error { return runServe(ctx, inv, o) }
}

// dashboardDB is what serve needs of the database with the dashboard:
// the API's and the metrics' store (serverDB) and the dashboard's.
type dashboardDB interface {
	serverDB
	web.Store
}

// runServe checks serve's flags, opens the database (and the replica) and
// serves until ctx ends.
func runServe(ctx context.Context, inv *invocation, o serveOptions) error {
	if len(inv.pos) > 0 {
		return usageErr(fmt.Sprintf("unexpected %q: serve takes only flags (commands: serve, station, site, admin, operators, ring, report, compact, backup, restore, version)", inv.pos[0]))
	}
	if o.replicaURL != "" && !serverdb.IsPostgres(inv.db) {
		// Before the database is opened: it would create the SQLite file.
		return errReplicaNeedsPostgres
	}
	created := newSQLiteFile(inv.db)
	st, err := inv.open(ctx, true)
	if err != nil {
		return err
	}
	defer st.Close()
	mode, err := server.ParseAccessLog(o.accessLog)
	if err != nil {
		return usageErr(err.Error())
	}
	if o.oldDesks != "redeem" && o.oldDesks != "refuse" {
		return usageErr(fmt.Sprintf("--old-desks %q: say redeem (the roll-out window) or refuse", o.oldDesks))
	}
	if o.cpuProfile != "" {
		stop, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	serving, err := st.MarkServing(ctx)
	if err != nil {
		return err
	}
	defer serving.Release()
	log := slog.New(slog.NewJSONHandler(inv.stderr, nil))
	logDatabase(log, inv.db, created)
	replica, err := openReplica(ctx, st, o.replicaURL, o.replicaMaxLag, log)
	if err != nil {
		return err
	}
	if replica != nil {
		defer replica.Close()
	}
	return serve(ctx, st, replica, log, inv.now, o.listen, o.cert, o.key, o.metricsListen, mode, o.oldDesks == "redeem")
}

// serve runs the API until ctx ends, then drains requests in flight.
func serve(ctx context.Context, st dashboardDB, replica *serverdb.Replica, log *slog.Logger, now func() time.Time, listen, cert, key, metricsListen string, accessLog server.AccessLog, oldDesks bool) error {
	metrics := server.NewMetrics(st, now)
	metrics.Separate = metricsListen != ""
	api := &server.API{Store: st, Log: log, Now: now, Metrics: metrics, AccessLog: accessLog}
	api.SetOldDesks(oldDesks)
	if replica != nil {
		api.Feed = replica
		metrics.WatchReplica(replica)
	}
	api.Web = (&web.Dashboard{Store: st, Log: log, Now: now, PendingAcks: api.PendingAcks}).Handler()
	srv := &http.Server{Addr: listen, Handler: api.Handler(),
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 60 * time.Second}
	if (cert == "") != (key == "") {
		return usageErr("give both --tls-cert and --tls-key, or neither")
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return fmt.Errorf("cannot use the TLS certificate: %w", err)
		}
		if pair.Leaf != nil {
			// Read at start: a renewed certificate takes a restart, which
			// the metric then follows.
			metrics.SetCertificateExpiry(pair.Leaf.NotAfter)
		}
	}
	if metricsListen != "" {
		if err := serveMetrics(ctx, api.Metrics, metricsListen, log); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("cannot listen on %s (is another server running there?): %w", listen, err)
	}
	if cert == "" && !plaintext.ListenLoopback(listen) {
		log.Warn("serving plain HTTP beyond this machine: desks' tokens, scans and the dashboard's passwords travel unencrypted; give --tls-cert and --tls-key, or listen on 127.0.0.1 behind a TLS proxy", "addr", ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() {
		log.Info("listening", "addr", ln.Addr().String(), "tls", cert != "")
		if cert != "" {
			errc <- srv.ServeTLS(ln, cert, key)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	delivered := deliverWebhooks(ctx, st, log, now)
	defer func() { <-delivered }()
	compacting := time.NewTicker(compactEvery)
	defer compacting.Stop()
	for {
		select {
		case err := <-errc:
			return err
		case <-compacting.C:
			compact(ctx, api, st, log, now)
			continue
		case <-ctx.Done():
		}
		break
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log.Info("shutting down")
	err = srv.Shutdown(shutdown)
	if ferr := api.FlushAcks(shutdown); ferr != nil {
		log.Warn("could not store how far the desks read the feed", "error", ferr.Error())
	}
	return err
}

var errReplicaNeedsPostgres = usageErr("--replica-url needs a PostgreSQL --db (postgres://…): a SQLite database has no read replicas")

// openReplica opens the read replica of --replica-url, if one is given:
// the desks' feed reads and snapshots go to it (serverdb.Replica says
// when the primary answers instead). A replica that does not answer yet
// is no reason not to start; one that is not a copy of --db's database is.
func openReplica(ctx context.Context, st *serverdb.DB, url string, maxLag time.Duration, log *slog.Logger) (*serverdb.Replica, error) {
	if url == "" {
		return nil, nil
	}
	if st.Engine() != "postgresql" {
		return nil, errReplicaNeedsPostgres
	}
	if maxLag <= 0 {
		return nil, usageErr("--replica-max-lag must be above zero, e.g. 5s")
	}
	r, err := serverdb.OpenReplica(ctx, st, url, serverdb.ReplicaOptions{MaxLag: maxLag, Log: log.With("component", "replica")})
	if err != nil {
		var nc *serverdb.NotACopy
		if errors.As(err, &nc) {
			return nil, err
		}
		return nil, usageErr("--replica-url: " + err.Error())
	}
	status := r.ReplicaStatus(ctx)
	log.Info("read replica", "up", status.Up, "lag_seconds", status.LagSeconds, "lag_bytes", status.LagBytes, "max_lag_seconds", maxLag.Seconds())
	return r, nil
}

// deliverWebhooks runs the webhooks' deliverer until ctx ends; the channel
// closes once it has stopped (its posts in flight ended, its leases given
// up). Every server process of a deployment runs one: a lease per
// endpoint in the database lets one deliver, and another take over when
// it stops.
func deliverWebhooks(ctx context.Context, st any, log *slog.Logger, now func() time.Time) <-chan struct{} {
	done := make(chan struct{})
	ws, ok := st.(webhook.Store)
	if !ok {
		close(done)
		return done
	}
	d := &webhook.Deliverer{Store: ws, Log: log.With("component", "webhooks"), Now: now}
	go func() {
		defer close(done)
		d.Run(ctx)
	}()
	return done
}

// newSQLiteFile reports whether db names a SQLite file that does not exist
// yet: serve would create it.
func newSQLiteFile(db string) bool {
	if serverdb.IsPostgres(db) {
		return false
	}
	_, err := os.Stat(db)
	return errors.Is(err, fs.ErrNotExist)
}

// logDatabase says which database the server serves. A server started in
// the wrong directory, or without --db, would otherwise serve a new, empty
// ./qrdesk-server.db and the desks would find no stations: the operator
// reads it in the first lines. A PostgreSQL URL is logged without its
// password.
func logDatabase(log *slog.Logger, db string, created bool) {
	if serverdb.IsPostgres(db) {
		log.Info("database", "postgres", serverdb.RedactDSN(db))
		return
	}
	path, err := filepath.Abs(db)
	if err != nil {
		path = db
	}
	if created {
		log.Warn("created a new, empty server database: if the stations are in another one, stop the server and give its --db (or QRDESK_SERVER_DB)", "sqlite", path)
		return
	}
	log.Info("database", "sqlite", path)
}
