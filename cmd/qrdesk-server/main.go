// Command qrdesk-server is the central server stations sync with. Pure Go
// (CGO_ENABLED=0), so it runs on a headless server or in a container.
//
//	qrdesk-server [serve] --db PATH --listen ADDR [--tls-cert F --tls-key F] [--metrics-listen ADDR]
//	              [--replica-url postgres://… [--replica-max-lag 5s]]
//	qrdesk-server station add NAME --letter L [--site S] | station renew NAME |
//	              station letter NAME L | station site NAME S | station revoke NAME | station list
//	qrdesk-server site add NAME | site rename OLD NEW | site list | site offline [refuse|decide]
//	qrdesk-server ring show | ring reset
//	qrdesk-server admin add NAME [--sites "A,B"] | admin sites NAME ["A,B" | --all-sites] |
//	              admin reset NAME | admin remove NAME | admin list
//	qrdesk-server report [--date YYYY-MM-DD]
//	qrdesk-server compact
//	qrdesk-server backup -o FILE | backup --failed REASON | restore FILE | restore --epoch-only
//	qrdesk-server version | --version
package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/plaintext"
	"qrdesk/protocol"
	"qrdesk/server"
	"qrdesk/serverdb"
	"qrdesk/web"
)

// clock is the server's time: station enrolment, every event it records,
// online redemptions and expiry, and the report's "today". Only a build for
// the CLI tests (tag qrdesk_testclock) replaces it.
var clock = time.Now

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, clock))
}

// run runs one command line with the clock now and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, now func() time.Time) int {
	if len(args) > 0 && (args[0] == "version" || args[0] == "--version" || args[0] == "-version") {
		printVersion(stdout)
		return 0
	}
	cmd, named := "serve", false
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args, named = args[0], args[1:], true
	}
	fs := flag.NewFlagSet("qrdesk-server "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", envOr("QRDESK_SERVER_DB", "qrdesk-server.db"), "database: a SQLite file")
	listen := fs.String("listen", "127.0.0.1:8427", "address to serve on")
	cert := fs.String("tls-cert", "", "TLS certificate (PEM); with --tls-key serves HTTPS")
	key := fs.String("tls-key", "", "TLS private key (PEM)")
	metricsListen := fs.String("metrics-listen", "", "serve /metrics on this address instead of --listen's")
	accessLog := fs.String("access-log", envOr("QRDESK_SERVER_ACCESS_LOG", string(server.AccessLogSampled)), "serve: which requests the log writes: sampled (every error, one line a second per route of the rest), all, or errors")
	oldDesks := fs.String("old-desks", envOr("QRDESK_SERVER_OLD_DESKS", "redeem"), "serve: desks of a release from before protocol versions (the first releases): redeem (the roll-out window: the server decides their scans online, refuses the rest) or refuse (every request, once every desk is upgraded)")
	replicaURL := fs.String("replica-url", os.Getenv("QRDESK_SERVER_REPLICA_URL"), "serve: read the desks' feed and snapshots from this streaming read replica of the PostgreSQL --db (postgres://…)")
	replicaMaxLag := fs.Duration("replica-max-lag", serverdb.DefaultReplicaMaxLag, "serve: read the feed from the primary while the replica lacks changes older than this")
	date := fs.String("date", "", "report: the day YYYY-MM-DD (default today)")
	letter := fs.String("letter", "", "station add: the desk's station letter A–Z (its settings station_id)")
	siteName := fs.String("site", "", "station add: the desk's site (default: the first site, 'main' after an upgrade); report: only this site's conflicts and flagged events")
	backupTo := fs.String("o", "", "backup: the new file to write the backup to")
	backupFailed := fs.String("failed", "", "backup: take no backup, only record that one failed, with this reason (the backup service's OnFailure=)")
	epochOnly := fs.Bool("epoch-only", false, "restore: only start a new history epoch (after a restore made by hand)")
	supervisor := fs.Bool("supervisor", false, "operators add: a supervisor (may disable and enable labels, change settings, reprint and undo at the desks)")
	allOperators := fs.Bool("all", false, "operators list: removed operators too")
	adminSites := fs.String("sites", "", "admin add: limit the administrator to these sites (\"North,South\"; default every site)")
	allSites := fs.Bool("all-sites", false, "admin sites: let the administrator see every site again")
	// Flags may come before or after the names: 'station add NAME --db F'.
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if !named && len(pos) > 0 {
		// Flags first ('--db F admin add NAME'): the first name is the
		// command, not something for serve to ignore while it starts.
		cmd, pos = pos[0], pos[1:]
	}
	if cmd == "serve" && len(pos) > 0 {
		fmt.Fprintf(stderr, "qrdesk-server serve: unexpected %q: serve takes only flags (commands: serve, station, site, admin, operators, ring, report, compact, backup, restore, version)\n", pos[0])
		return 2
	}
	if cmd == "restore" {
		// Not opened first: the backup replaces the database.
		return exitCode(restore(ctx, *db, pos, *epochOnly, now, stdout), cmd, stderr)
	}
	if err := mustExist(cmd, pos, *db); err != nil {
		fmt.Fprintf(stderr, "qrdesk-server %s: %v\n", cmd, err)
		return 2
	}
	if cmd == "serve" && *replicaURL != "" && !strings.Contains(*db, "://") {
		// Before the database is opened: it would create the SQLite file.
		return exitCode(errReplicaNeedsPostgres, cmd, stderr)
	}
	st, err := serverdb.Open(ctx, *db)
	if err != nil {
		fmt.Fprintf(stderr, "qrdesk-server: %v\n", err)
		return 3
	}
	defer st.Close()
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	switch cmd {
	case "serve":
		var mode server.AccessLog
		if mode, err = server.ParseAccessLog(*accessLog); err != nil {
			err = usageErr(err.Error())
			break
		}
		if *oldDesks != "redeem" && *oldDesks != "refuse" {
			err = usageErr(fmt.Sprintf("--old-desks %q: say redeem (the roll-out window) or refuse", *oldDesks))
			break
		}
		var serving *serverdb.Serving
		if serving, err = st.MarkServing(ctx); err != nil {
			break
		}
		defer serving.Release()
		var replica *serverdb.Replica
		if replica, err = openReplica(ctx, st, *replicaURL, *replicaMaxLag, log); err == nil {
			if replica != nil {
				defer replica.Close()
			}
			err = serve(ctx, st, replica, log, now, *listen, *cert, *key, *metricsListen, mode, *oldDesks == "redeem")
		}
	case "station":
		err = station(ctx, st, now, pos, *letter, *siteName, stdout)
	case "site":
		err = site(ctx, st, now, pos, stdout)
	case "ring":
		err = ring(ctx, st, pos, stdout)
	case "admin":
		af := adminFlags{sites: *adminSites, allSites: *allSites}
		fs.Visit(func(f *flag.Flag) { af.sitesSet = af.sitesSet || f.Name == "sites" })
		err = admin(ctx, st, now, pos, af, stdout)
	case "operators":
		err = operators(ctx, st, now, pos, *supervisor, *allOperators, stdout)
	case "compact":
		var n int64
		if n, err = st.Compact(ctx, now().Add(-staleDesk).Unix()); err == nil {
			fmt.Fprintf(stdout, "dropped %d changes every active desk has read\n", n)
		}
	case "report":
		err = report(ctx, st, now, *date, *siteName, stdout)
	case "backup":
		err = backup(ctx, st, now, *backupTo, *backupFailed, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "qrdesk-server: unknown command %q: use serve, station, site, admin, operators, ring, report, compact, backup, restore or version\n", cmd)
		return 2
	}
	return exitCode(err, cmd, stderr)
}

// exitCode prints err and returns the exit code: 0, 2 for a usage error or
// bad input, 3 for any other failure.
func exitCode(err error, cmd string, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "qrdesk-server %s: %v\n", cmd, err)
	var ue *usageError
	var br *central.BadRequest
	var ns *central.NoSite
	if errors.As(err, &ue) || errors.As(err, &br) || errors.As(err, &ns) || errors.Is(err, central.ErrSiteExists) {
		return 2
	}
	return 3
}

// mustExist refuses a mistyped --db for the commands that read a server's
// database: only serve, 'station add' and 'admin add' (setting up) may create one, or a
// report would come out of a new, empty database and say "no conflicts".
func mustExist(cmd string, pos []string, db string) error {
	if cmd == "serve" || ((cmd == "station" || cmd == "admin" || cmd == "site") && len(pos) > 0 && pos[0] == "add") || strings.Contains(db, "://") {
		return nil
	}
	if _, err := os.Stat(db); err != nil {
		return fmt.Errorf("no server database at %s: give the server's --db (or QRDESK_SERVER_DB)", db)
	}
	return nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
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

// The feed is compacted every compactEvery below what every desk has
// read; a desk silent for longer than staleDesk does not hold it back (it
// starts over from a snapshot when it returns).
const (
	compactEvery = 10 * time.Minute
	staleDesk    = 30 * 24 * time.Hour
)

func compact(ctx context.Context, api *server.API, st central.Store, log *slog.Logger, now func() time.Time) {
	if err := api.FlushAcks(ctx); err != nil {
		log.Warn("could not store how far the desks read the feed", "error", err.Error())
		return
	}
	n, err := st.Compact(ctx, now().Add(-staleDesk).Unix())
	if err != nil {
		log.Warn("feed compaction failed", "error", err.Error())
		return
	}
	if n > 0 {
		log.Info("feed compacted", "dropped", n)
	}
}

const stationUsage = `say one of:
  station add NAME --letter L [--site S]
                                enrol a desk; L is its station letter (settings station_id),
                                S its site (default: the first site)
  station site NAME S           move a desk to site S (it starts over from S's labels)
  station renew NAME            a new token for a desk (lifts a revocation)
  station letter NAME L         bind a letter to a desk enrolled without one
  station revoke NAME           refuse the desk's token from now on
  station list`

func station(ctx context.Context, st *serverdb.DB, now func() time.Time, args []string, letter, siteName string, out io.Writer) error {
	switch {
	case len(args) == 2 && args[0] == "add":
		token, err := newToken()
		if err != nil {
			return err
		}
		s := central.Station{Name: args[1], Letter: strings.ToUpper(letter), CreatedAt: now().Unix(), Site: siteName}
		if err := st.AddStation(ctx, s, server.HashToken(token)); err != nil {
			return err
		}
		where := ""
		if siteName != "" {
			where = ", site " + siteName
		}
		fmt.Fprintf(out, "station %s added (letter %s%s). Its token (shown once, keep it secret):\n%s\n", s.Name, orNone(s.Letter), where, token)
		return nil
	case len(args) == 3 && args[0] == "site":
		if err := st.SetStationSite(ctx, args[1], args[2]); err != nil {
			return err
		}
		fmt.Fprintf(out, "station %s is in site %s now; its desk starts over from that site's labels at its next sync\n", args[1], args[2])
		return nil
	case len(args) == 2 && args[0] == "renew":
		token, err := newToken()
		if err != nil {
			return err
		}
		if err := st.RenewStation(ctx, args[1], server.HashToken(token)); err != nil {
			return err
		}
		fmt.Fprintf(out, "station %s has a new token; the old one no longer works (shown once, keep it secret):\n%s\n", args[1], token)
		return nil
	case len(args) == 3 && args[0] == "letter":
		return st.SetStationLetter(ctx, args[1], strings.ToUpper(args[2]))
	case len(args) == 2 && args[0] == "revoke":
		return st.RevokeStation(ctx, args[1], now().Unix())
	case len(args) == 1 && args[0] == "list":
		list, err := st.Stations(ctx)
		if err != nil {
			return err
		}
		unbound, err := st.Unbound(ctx)
		if err != nil {
			return err
		}
		why := map[string]string{}
		for _, u := range unbound {
			why[u.Name] = u.Why()
		}
		for _, s := range list {
			state := "active"
			if s.RevokedAt != 0 {
				state = "revoked"
			}
			if w := why[s.Name]; w != "" {
				state += "\t" + w
			}
			fmt.Fprintf(out, "%s\t%s\t%s\t%s\n", s.Name, orNone(s.Letter), s.Site, state)
		}
		return nil
	}
	return usageErr(stationUsage)
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newToken() (string, error) {
	buf := make([]byte, 24)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	return "qrd_" + hex.EncodeToString(buf), nil
}

// ring repairs the deployment's key-ring binding: the first desk to call
// binds it, so a desk with the wrong key file can take it first.
func ring(ctx context.Context, st *serverdb.DB, args []string, out io.Writer) error {
	switch {
	case len(args) == 1 && args[0] == "show":
		id, err := st.RingID(ctx)
		fmt.Fprintf(out, "%s\n", orNone(id))
		return err
	case len(args) == 1 && args[0] == "reset":
		if err := st.ResetRing(ctx); err != nil {
			return err
		}
		fmt.Fprintln(out, "key ring binding cleared: the next desk to connect binds its key ring; restart every qrdesk-server process on this database")
		return nil
	}
	return usageErr("say: ring show, or ring reset")
}

// usageError is a mistake in the command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErr(msg string) error { return &usageError{msg} }

// reportStore is what the report reads.
type reportStore interface {
	ConflictRecords(ctx context.Context, from, to int64) ([]central.ConflictRecord, error)
	FlaggedEvents(ctx context.Context, from, to int64) ([]serverdb.FlaggedEvent, error)
	Sites(ctx context.Context) ([]central.Site, error)
}

// reportedConflict is a conflict as the report prints it: the protocol's
// fields and the site of its label.
type reportedConflict struct {
	protocol.Conflict
	Site string `json:"site"`
}

// report prints the conflicts whose first redemption was on one local day
// (a day is 23 or 25 hours long when the clocks change), and the events
// whose desk time the server did not take at its word. With a site, only
// that site's: the conflicts over its labels or with one of its desks
// taking part, and the flagged events of its desks (the dashboard's
// Conflicts page by site counts the same).
func report(ctx context.Context, st reportStore, now func() time.Time, date, site string, out io.Writer) error {
	today := now()
	from, err := app.ParseDate(date, today)
	if err != nil {
		return usageErr("--date must be YYYY-MM-DD")
	}
	if site != "" {
		if site, err = reportSite(ctx, st, site); err != nil {
			return err
		}
	}
	records, err := st.ConflictRecords(ctx, from.Unix(), from.AddDate(0, 0, 1).Unix())
	if err != nil {
		return err
	}
	list := []reportedConflict{}
	for _, k := range records {
		if site == "" || k.In(site) {
			list = append(list, reportedConflict{k.Conflict, k.Site})
		}
	}
	events, err := st.FlaggedEvents(ctx, from.Unix(), from.AddDate(0, 0, 1).Unix())
	if err != nil {
		return err
	}
	flagged := []serverdb.FlaggedEvent{}
	for _, f := range events {
		if site == "" || f.Site == site {
			flagged = append(flagged, f)
		}
	}
	doc := map[string]any{"date": from.Format("2006-01-02"), "conflicts": list, "flagged_events": flagged}
	if site != "" {
		doc["site"] = site
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// reportSite is the name of the site --site names (any case), or a usage
// error that lists the sites there are.
func reportSite(ctx context.Context, st reportStore, name string) (string, error) {
	sites, err := st.Sites(ctx)
	if err != nil {
		return "", err
	}
	var names []string
	for _, s := range sites {
		if strings.EqualFold(s.Name, name) {
			return s.Name, nil
		}
		names = append(names, s.Name)
	}
	return "", usageErr(fmt.Sprintf("--site %q: there is no such site (the sites: %s)", name, strings.Join(names, ", ")))
}
