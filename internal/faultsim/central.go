package faultsim

// Everything the harness knows about the central server lives in this file:
// starting and killing it, stations and tokens, the desk's client, and
// reading the server's database for the checker. When the central types
// move out of package server, this is the file to adapt.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"qrdesk/app"
	qcentral "qrdesk/central"
	"qrdesk/deskclient"
	"qrdesk/protocol"
	"qrdesk/server"
	"qrdesk/serverdb"
	"qrdesk/webhook"
)

// central is qrdesk-server in this process: server.API over serverdb.Open
// on a loopback listener, which the harness can kill and restart.
type central struct {
	dsn  string       // SQLite file or postgres:// URL
	addr atomic.Value // host:port of the running instance, "" while down
	// admin is the administrator's own handle on the database, as
	// 'qrdesk-server station add' opens it: it works while the server is
	// down, and the checker reads through it.
	admin *serverdb.DB
	// adminMu is held while the handle is closed and opened again (a backup
	// or a restore) and by the steps that use it, which may run at once
	// with those in one group.
	adminMu sync.Mutex

	mu       sync.Mutex
	db       *serverdb.DB
	srv      *http.Server
	gate     *gate
	restarts int
	backups  map[int]string // backup number → SQLite file or PostgreSQL database
	restores int
	errors   errorLog // what the server logged as errors, for the report
	// wms is the webhook receiver (webhooks.go); stopDelivery stops the
	// running instance's deliverer.
	wms          *wms
	stopDelivery func()
}

// errorLog keeps the distinct errors the server logs (the access log and
// other lines below error level are dropped).
type errorLog struct {
	mu    sync.Mutex
	count map[string]int
	order []string
}

func (l *errorLog) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelError }

func (l *errorLog) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool {
		msg += " " + a.Key + "=" + a.Value.String()
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.count == nil {
		l.count = map[string]int{}
	}
	if l.count[msg] == 0 {
		l.order = append(l.order, msg)
	}
	l.count[msg]++
	return nil
}

func (l *errorLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *errorLog) WithGroup(string) slog.Handler      { return l }

// lines are the distinct errors with how often each was logged.
func (l *errorLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, m := range l.order {
		out = append(out, fmt.Sprintf("%d× %s", l.count[m], m))
	}
	return out
}

// gate lets the harness wait for the handlers of a killed instance before it
// closes the database under them (a handler that starts after the kill
// answers nothing).
type gate struct {
	mu     sync.RWMutex
	closed bool
}

func startCentral(ctx context.Context, dsn string) (*central, error) {
	c := &central{dsn: dsn, wms: newWMS()}
	c.addr.Store("")
	if err := c.start(ctx); err != nil {
		c.wms.srv.Close()
		return nil, err
	}
	var err error
	if c.admin, err = serverdb.Open(ctx, dsn); err != nil {
		c.kill()
		c.wms.srv.Close()
		return nil, fmt.Errorf("open the server database for the administrator: %w", err)
	}
	if err := c.admin.AddWebhook(ctx, webhook.Endpoint{Name: "wms", URL: c.wms.srv.URL, Secret: wmsSecret}, true); err != nil {
		c.close()
		return nil, fmt.Errorf("add the webhook endpoint: %w", err)
	}
	return c, nil
}

// outbox is every event the server holds to deliver (webhooks.go).
func (c *central) outbox(ctx context.Context) ([]webhook.Event, error) {
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	floor, _, err := c.admin.FeedBounds(ctx)
	if err != nil {
		return nil, err
	}
	evs, _, err := c.admin.Handovers(ctx, floor, 1_000_000)
	return evs, err
}

// close kills the server and closes the administrator's handle; backups
// kept in PostgreSQL databases are dropped.
func (c *central) close() {
	c.kill()
	c.admin.Close()
	c.wms.srv.Close()
	if IsPostgres(c.dsn) {
		for _, name := range c.backups {
			c.maintenance(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
		}
	}
}

func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// stopped stops the server and closes the administrator's handle, runs
// fn on the database at rest, and opens and starts both again: a backup or
// a restore as an administrator does it (qrdesk-server stopped).
func (c *central) stopped(ctx context.Context, fn func() error) error {
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	c.kill()
	c.admin.Close()
	err := fn()
	admin, aerr := serverdb.Open(ctx, c.dsn)
	if aerr != nil {
		return errors.Join(err, fmt.Errorf("open the server database for the administrator: %w", aerr))
	}
	c.admin = admin
	return errors.Join(err, c.start(ctx))
}

// backup takes backup n with the server stopped: a copy of the SQLite file
// (closed cleanly, so the WAL is checkpointed into it), or on PostgreSQL a
// database created from the server's as its template.
func (c *central) backup(ctx context.Context, n int) error {
	return c.stopped(ctx, func() error {
		if c.backups == nil {
			c.backups = map[int]string{}
		}
		if IsPostgres(c.dsn) {
			name := c.pgName() + fmt.Sprintf("_bk%d", n)
			c.backups[n] = name
			return c.maintenance(ctx, `CREATE DATABASE `+name+` TEMPLATE `+c.pgName())
		}
		c.backups[n] = c.dsn + fmt.Sprintf(".bk%d", n)
		return copyFile(c.dsn, c.backups[n])
	})
}

// restore replaces the server's database by backup n, with the server
// stopped: the SQLite file (and any WAL beside it) replaced by the copy,
// or the PostgreSQL database dropped and created again from the backup.
func (c *central) restore(ctx context.Context, n int) error {
	c.mu.Lock()
	c.restores++
	c.mu.Unlock()
	return c.stopped(ctx, func() error {
		bk, ok := c.backups[n]
		if !ok {
			return fmt.Errorf("no backup %d", n)
		}
		if IsPostgres(c.dsn) {
			if err := c.maintenance(ctx, `DROP DATABASE `+c.pgName()+` WITH (FORCE)`); err != nil {
				return err
			}
			return c.maintenance(ctx, `CREATE DATABASE `+c.pgName()+` TEMPLATE `+bk)
		}
		for _, suffix := range []string{"-wal", "-shm"} {
			if err := os.Remove(c.dsn + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		return copyFile(bk, c.dsn)
	})
}

// pgName is the server's PostgreSQL database.
func (c *central) pgName() string {
	u, err := url.Parse(c.dsn)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// maintenance runs one statement on the cluster's postgres database.
func (c *central) maintenance(ctx context.Context, stmt string) error {
	u, err := url.Parse(c.dsn)
	if err != nil {
		return err
	}
	u.Path = "/postgres"
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, stmt)
	return err
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o600)
}

// setToken sets a station's token on the server again, revoked or not: after
// a restore the backup holds the tokens of its time, and an administrator
// renews the desks' tokens (and revokes again) as they stand.
func (c *central) setToken(ctx context.Context, name, letter, site, token string, revoked bool) error {
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	err := c.admin.RenewStation(ctx, name, server.HashToken(token))
	if errors.Is(err, qcentral.ErrNoStation) {
		// Enrolled after the backup: the administrator enrols it again
		// under the same name and letter (docs/deploy.md).
		identity := site
		if site, err = c.siteNow(ctx, site); err != nil {
			// Its site too was added after the backup: the administrator
			// adds the site again first.
			if err = c.admin.AddSite(ctx, identity, time.Now().Unix()); err != nil {
				return fmt.Errorf("add site %s again after the restore: %w", identity, err)
			}
			site = identity
		}
		err = c.admin.AddStation(ctx, qcentral.Station{Name: name, Letter: letter, Site: site, CreatedAt: time.Now().Unix()}, server.HashToken(token))
	}
	if err != nil {
		return err
	}
	if revoked {
		return c.revokeLocked(ctx, name)
	}
	return nil
}

// acknowledged lists the redemptions the server holds now (event ids of
// kind redeem, outcome redeemed or conflict).
func (c *central) acknowledged(ctx context.Context) (map[string]bool, error) {
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	out := map[string]bool{}
	err := queryEach(ctx, c.admin, `SELECT event_id FROM events WHERE kind = 'redeem' AND outcome IN ('redeemed', 'conflict')`, func(rows *sql.Rows) error {
		var id string
		err := rows.Scan(&id)
		out[id] = true
		return err
	})
	return out, err
}

// dayRows are the dashboard's rows (station → issued, redeemed and
// conflicts) for [from, to).
func (c *central) dayRows(ctx context.Context, from, to int64) (map[string]dayRow, error) {
	day, err := c.admin.DayActivity(ctx, from, to)
	if err != nil {
		return nil, err
	}
	out := map[string]dayRow{}
	for _, d := range day.Desks {
		out[d.Station] = dayRow{Issued: d.Issued, Redeemed: d.Redeemed, Conflicts: d.Conflicts}
	}
	return out, nil
}

// dayRow is one desk's figures, as the dashboard or the desk counts them.
type dayRow struct{ Issued, Redeemed, Conflicts int }

func (c *central) start(ctx context.Context) error {
	db, err := serverdb.Open(ctx, c.dsn)
	if err != nil {
		return fmt.Errorf("open the server database: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		db.Close()
		return err
	}
	api := (&server.API{Store: db, Log: slog.New(&c.errors), Now: time.Now}).Handler()
	g := &gate{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.RLock()
		defer g.mu.RUnlock()
		if g.closed {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		api.ServeHTTP(w, r)
	}), ErrorLog: log.New(io.Discard, "", 0)} // a killed server's complaints are expected
	go srv.Serve(ln)
	dctx, stop := context.WithCancel(context.Background())
	d := &webhook.Deliverer{Store: db, Now: time.Now, Client: &http.Client{Timeout: 2 * time.Second},
		Poll: 20 * time.Millisecond, BackoffMin: 5 * time.Millisecond, BackoffMax: 100 * time.Millisecond}
	delivered := make(chan struct{})
	go func() { d.Run(dctx); close(delivered) }()
	c.mu.Lock()
	c.db, c.srv, c.gate = db, srv, g
	c.stopDelivery = func() { stop(); <-delivered }
	c.mu.Unlock()
	c.addr.Store(ln.Addr().String())
	return nil
}

// kill stops the instance abruptly: listener and connections closed at
// once, answers in flight lost. Handlers already running finish (their
// transactions commit or not, as at a real crash) before the database
// closes.
func (c *central) kill() {
	c.addr.Store("")
	c.mu.Lock()
	srv, db, g, stopDelivery := c.srv, c.db, c.gate, c.stopDelivery
	c.srv, c.db, c.gate, c.stopDelivery = nil, nil, nil, nil
	c.mu.Unlock()
	if srv == nil {
		return
	}
	srv.Close()
	stopDelivery() // its posts in flight end; delivered again after the restart
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	db.Close()
}

// restart kills the instance and serves the same database again, on a new
// port (the proxies follow addr).
func (c *central) restart(ctx context.Context) error {
	c.kill()
	c.mu.Lock()
	c.restarts++
	c.mu.Unlock()
	return c.start(ctx)
}

// address is where the proxies forward to ("" while the server is down).
func (c *central) address() string { return c.addr.Load().(string) }

// token enrols a desk in site (an identity, siteIdentity; "": the
// deployment's first) with its first token (n = 1) or gives it a working
// token again after a revocation (n > 1: 'station renew'), and returns the
// station name the server knows it by and the bearer token.
func (c *central) token(ctx context.Context, name, letter, site string, n int) (station, token string, err error) {
	token = "qrd_faultsim_" + app.NewTraceID()
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	if n > 1 {
		return name, token, c.admin.RenewStation(ctx, name, server.HashToken(token))
	}
	if site, err = c.siteNow(ctx, site); err != nil {
		return name, token, err
	}
	return name, token, c.admin.AddStation(ctx, qcentral.Station{Name: name, Letter: letter, Site: site, CreatedAt: time.Now().Unix()}, server.HashToken(token))
}

func (c *central) revokeStation(ctx context.Context, name string) error {
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	return c.revokeLocked(ctx, name)
}

func (c *central) revokeLocked(ctx context.Context, name string) error {
	err := c.admin.RevokeStation(ctx, name, time.Now().Unix())
	if errors.Is(err, qcentral.ErrNoStation) || errors.Is(err, qcentral.ErrAlreadyRevoked) {
		return nil // revoked already
	}
	return err
}

// newRemote is a desk's connection to the server, through its proxy.
func newRemote(proxyURL, token string) app.Remote { return deskclient.New(proxyURL, token) }

// Server-side facts the checker reads.
type (
	serverCode struct {
		Code, Status, UsedStation, UsedEvent string
		ExpireAt, UsedAt                     int64
	}
	serverEvent struct {
		EventID, Station, Code, Detail, Undoes string
		Kind                                   protocol.Kind
		Outcome                                protocol.Outcome
		At, ReceivedAt                         int64
		Offline                                bool
		Flags                                  qcentral.Flags
	}
	serverConflict struct {
		Code, FirstEvent, FirstStation, SecondEvent, SecondStation string
		FirstAt, SecondAt                                          int64
	}
	serverState struct {
		Codes     map[string]serverCode
		Events    []serverEvent
		Conflicts []serverConflict
		Feed      map[string][]string // the feed's changes of each code, in order (for the facts)
		Now       int64               // the server's clock when read
	}
)

// readServer reads the whole server database (it is small).
func (c *central) readServer(ctx context.Context) (serverState, error) {
	db := c.admin
	st := serverState{Codes: map[string]serverCode{}, Feed: map[string][]string{}, Now: time.Now().Unix()}
	err := queryEach(ctx, db, `SELECT code, status, used_station, used_event, expire_at, used_at FROM codes`, func(rows *sql.Rows) error {
		var k serverCode
		err := rows.Scan(&k.Code, &k.Status, &k.UsedStation, &k.UsedEvent, &k.ExpireAt, &k.UsedAt)
		st.Codes[k.Code] = k
		return err
	})
	if err != nil {
		return st, fmt.Errorf("read the server's codes: %w", err)
	}
	err = queryEach(ctx, db, `SELECT event_id, station, kind, code, outcome, detail, at, received_at, offline, COALESCE(undoes, ''), flags FROM events ORDER BY id`, func(rows *sql.Rows) error {
		var e serverEvent
		err := rows.Scan(&e.EventID, &e.Station, &e.Kind, &e.Code, &e.Outcome, &e.Detail, &e.At, &e.ReceivedAt, &e.Offline, &e.Undoes, &e.Flags)
		st.Events = append(st.Events, e)
		return err
	})
	if err != nil {
		return st, fmt.Errorf("read the server's events: %w", err)
	}
	err = queryEach(ctx, db, `SELECT code, first_event, first_station, second_event, second_station, first_at, second_at FROM conflicts ORDER BY id`, func(rows *sql.Rows) error {
		var k serverConflict
		err := rows.Scan(&k.Code, &k.FirstEvent, &k.FirstStation, &k.SecondEvent, &k.SecondStation, &k.FirstAt, &k.SecondAt)
		st.Conflicts = append(st.Conflicts, k)
		return err
	})
	if err != nil {
		return st, fmt.Errorf("read the server's conflicts: %w", err)
	}
	// A change's position is its seq on SQLite; on PostgreSQL the one
	// given after its commit (0: not given yet).
	posColumn := "seq"
	if IsPostgres(c.dsn) {
		posColumn = "COALESCE(pos, 0)"
	}
	err = queryEach(ctx, db, `SELECT seq, `+posColumn+`, site, kind, code, station, data FROM changes ORDER BY seq`, func(rows *sql.Rows) error {
		var seq, pos, site int64
		var kind, code, station, data string
		err := rows.Scan(&seq, &pos, &site, &kind, &code, &station, &data)
		st.Feed[code] = append(st.Feed[code], fmt.Sprintf("%d (position %d, site %d) %s by %s %s", seq, pos, site, kind, station, data))
		return err
	})
	if err != nil {
		return st, fmt.Errorf("read the server's feed: %w", err)
	}
	return st, nil
}

// queryEach runs a query without parameters (so it reads the same on both
// engines) on the server's database and calls scan for every row.
func queryEach(ctx context.Context, db *serverdb.DB, query string, scan func(*sql.Rows) error) error {
	rows, err := db.Read(ctx, query)
	return scanEach(rows, err, scan)
}

// clockFlagged reports whether the server set an event's desk time aside
// (decided it at its own receive time, or corrected it by an offset it
// could not trust).
func clockFlagged(f qcentral.Flags) bool { return f.Has(qcentral.FlagsClock) }

// clockSlack is how far the server's corrected time of a trusted offline
// event may be from its true time: half a measurement's round trip
// (app.MaxProbeRoundTrip) and whole seconds rounded twice.
const clockSlack = app.MaxProbeRoundTrip/2 + 2*time.Second

// addSite adds a site, as 'qrdesk-server site add' does.
func (c *central) addSite(ctx context.Context, name string) error {
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	return c.admin.AddSite(ctx, name, time.Now().Unix())
}

// moveStation moves a station to a site (an identity), as 'qrdesk-server
// station move' does, by the name the site has now, which it returns.
func (c *central) moveStation(ctx context.Context, station, site string) (string, error) {
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	name, err := c.siteNow(ctx, site)
	if err != nil {
		return "", err
	}
	return name, c.admin.SetStationSite(ctx, station, name)
}

// renameSite renames a site (an identity) to name, as 'qrdesk-server site
// rename' does, and returns the name it had; a site named so already (a
// server restore brought the name back) is left as it is.
func (c *central) renameSite(ctx context.Context, site, name string) (string, error) {
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	was, err := c.siteNow(ctx, site)
	if err != nil || was == name {
		return was, err
	}
	return was, c.admin.RenameSite(ctx, was, name)
}

// siteNow is the name a site (an identity) has on the server now; "" for
// "" (the deployment's first site). The caller holds adminMu.
func (c *central) siteNow(ctx context.Context, site string) (string, error) {
	if site == "" {
		return "", nil
	}
	sites, err := c.admin.Sites(ctx)
	if err != nil {
		return "", fmt.Errorf("the server's sites: %w", err)
	}
	for _, s := range sites {
		if siteIdentity(s.Name) == site {
			return s.Name, nil
		}
	}
	return "", fmt.Errorf("the server has no site that is or was %s", site)
}

// stationSite is the site (an identity) of a station now.
func (c *central) stationSite(ctx context.Context, station string) (string, error) {
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	sites, err := c.stationSites(ctx)
	return sites[station], err
}

// stationSites are the stations' sites (station name → site identity),
// and labelSites the labels' (code → site identity).
func (c *central) stationSites(ctx context.Context) (map[string]string, error) {
	m, err := c.names(ctx, `SELECT t.name, s.name FROM stations t JOIN sites s ON s.id = t.site`)
	return siteIdentities(m), err
}

func (c *central) labelSites(ctx context.Context) (map[string]string, error) {
	m, err := c.names(ctx, `SELECT c.code, s.name FROM codes c JOIN sites s ON s.id = c.site`)
	return siteIdentities(m), err
}

// siteNames are the sites' names now (a rename's story).
func (c *central) siteNamesNow(ctx context.Context) ([]string, error) {
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	sites, err := c.admin.Sites(ctx)
	var out []string
	for _, s := range sites {
		out = append(out, s.Name)
	}
	return out, err
}

// staffRemoved are the removed operators (name → removed_at), and
// staffCurrent the current ones.
func (c *central) staffRemoved(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	err := queryEach(ctx, c.admin, `SELECT name, removed_at FROM staff WHERE removed_at <> 0`, func(rows *sql.Rows) error {
		var name string
		var at int64
		err := rows.Scan(&name, &at)
		out[name] = at
		return err
	})
	return out, err
}

func (c *central) staffCurrent(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	err := queryEach(ctx, c.admin, `SELECT name FROM staff WHERE removed_at = 0`, func(rows *sql.Rows) error {
		var name string
		err := rows.Scan(&name)
		out[name] = true
		return err
	})
	return out, err
}

func (c *central) names(ctx context.Context, query string) (map[string]string, error) {
	out := map[string]string{}
	err := queryEach(ctx, c.admin, query, func(rows *sql.Rows) error {
		var k, v string
		err := rows.Scan(&k, &v)
		out[k] = v
		return err
	})
	return out, err
}

// staff adds ("add", a supervisor: a close with expiry is a supervisor's
// act) or removes ("remove") an operator of the staff list as an
// administrator.
func (c *central) staff(ctx context.Context, action, name string) error {
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	ch := protocol.StaffChange{Action: action, Name: name}
	if action == "add" {
		ch.Supervisor = true
		var err error
		if ch.PINHash, err = app.HashPIN("4711"); err != nil {
			return err
		}
	}
	_, err := c.admin.ChangeStaff(ctx, ch, "", time.Now().Unix())
	return err
}
