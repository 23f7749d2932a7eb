package faultsim

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"qrdesk/app"
	"qrdesk/store"
)

// desk is one station: its own database, the deployment's key ring, its own
// token, a proxy between it and the server, and its own clock.
type desk struct {
	idx   int
	name  string // the desk's station_name setting
	db    *store.DB
	svc   *app.Service
	proxy *proxy
	skew  atomic.Int64 // added to the real clock
	extra atomic.Int64 // added too, for the steps that need it (an undo past the window, desk C's issue)
	zone  atomic.Int64 // the desk's time zone, ahead of the process's (ClockDays)

	path   string // the database file
	keys   app.Keys
	logger *slog.Logger
	cfg    Config
	site   string // the site the harness enrolled or moved it to ("" without sites)

	// Changed only between groups or in this desk's own token step (the
	// planner never runs two token steps of a desk in one group).
	serverName string   // the station the server knows the desk's token as
	token      string   // the desk's bearer token (a restore sets it again on the server)
	tokens     int      // tokens the desk had, for the next station name
	stations   []string // every station name the desk had on the server

	revoked atomic.Bool // its token is revoked (a scan may read it meanwhile)
	// unsynced: the desk was restored from a backup and has not synced
	// since (a Sync step ended well).
	unsynced atomic.Bool
}

func openDesk(ctx context.Context, cfg Config, idx int, keyFile string, srv *central) (*desk, error) {
	keys, err := app.LoadKeys(keyFile, false)
	if err != nil {
		return nil, err
	}
	// Each desk in a folder of its own, as on a real desk: its database
	// and sync.json beside it ('qrdesk' refuses to open a lost database
	// beside sync settings).
	path := filepath.Join(cfg.Dir, "desk-"+deskName(idx), "qrdesk.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	d := &desk{idx: idx, name: "Desk " + deskName(idx), path: path, keys: keys, cfg: cfg}
	if cfg.on(TopoSites) {
		d.site = topologySites[idx%len(topologySites)]
	}
	if os.Getenv("QRDESK_FAULTSIM_LOG") != "" {
		d.logger = slog.New(slog.NewTextHandler(os.Stderr, nil)).With("desk", d.name)
	}
	d.attach(db, nil)
	if _, err := d.svc.UpdateSettings(ctx, map[string]string{
		"station_id": deskName(idx), "station_name": d.name, "serial_digits": "4", "configured": "true",
	}, "faultsim"); err != nil {
		db.Close()
		return nil, err
	}
	if cfg.on(TopoDeskRestore) {
		// As 'qrdesk init' does: the database names its key ring, so that
		// 'qrdesk restore' accepts its backups.
		if err := d.svc.BindKeyRing(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	if d.proxy, err = newProxy(srv.address); err != nil {
		db.Close()
		return nil, err
	}
	if err := d.newToken(ctx, srv); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

// attach makes db the desk's database, with a service on the desk's
// clock (and its time zone) and remote (nil: none yet).
func (d *desk) attach(db *store.DB, remote app.Remote) {
	d.db = db
	d.svc = app.NewService(db, d.keys, d.logger)
	d.svc.Now = d.now
	d.svc.OnlineTimeout, d.svc.OfflineFor = d.cfg.OnlineTimeout, d.cfg.OfflineFor
	if remote != nil {
		d.svc.Remote = remote
	}
}

// now is the desk's clock: the real one skewed, in the desk's time zone
// when it has one (ahead of the process's own zone by d.zone, so the run
// does not depend on the machine's zone).
func (d *desk) now() time.Time {
	t := time.Now().Add(time.Duration(d.skew.Load() + d.extra.Load()))
	if z := d.zone.Load(); z != 0 {
		_, off := t.Zone()
		t = t.In(time.FixedZone("desk", off+int(time.Duration(z)/time.Second)))
	}
	return t
}

// newToken gives the desk a working token (see central.token) and points
// the desk's client at it. The desk's own station name stays.
func (d *desk) newToken(ctx context.Context, srv *central) error {
	d.tokens++
	name, token, err := srv.token(ctx, d.name, deskName(d.idx), d.site, d.tokens)
	if err != nil {
		return err
	}
	d.serverName, d.token = name, token
	d.stations = append(d.stations, name)
	d.revoked.Store(false)
	d.svc.Remote = newRemote(d.proxy.URL(), token)
	// What 'qrdesk sync --server URL --token-file F' saves beside the
	// database: the desk's command line finds its server as a real
	// desk's does.
	conf, err := json.Marshal(map[string]string{"server": d.proxy.URL(), "token": token})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(filepath.Dir(d.path), "sync.json"), conf, 0o600)
}

func (d *desk) close() {
	d.proxy.close()
	d.db.Close()
}

// verdict is what a desk told a clerk about one scan.
type verdict struct {
	Desk, Group, Step, Label int
	Outcome                  app.Outcome
	TraceID, Reason, Err     string
	At                       int64 // the desk's clock
	// Began is the server's clock (the process's) when the scan began:
	// the scan's true time is in [Began, Began+Took].
	Began        time.Time
	Skew         time.Duration // the desk's clock skew when it ended
	Took         time.Duration
	Revoked      bool // the desk's token was revoked when the scan began
	Network      Mode // the desk's network when the scan began
	LocalRefusal bool // the desk refused it from its own database
	// Order is the order parcel the desk named beside its verdict (nil:
	// none).
	Order *app.OrderParcel
}

// Desk-side facts the checker reads.
type (
	deskCode struct {
		Status   string
		ExpireAt int64
	}
	outboxEvent struct {
		EventID, Kind, Code, State, Result string
		At                                 int64
		// Offline: decided at the desk; a redemption the server answered
		// online is kept in the outbox too (sent, offline 0), to be sent
		// again if a restore loses it.
		Offline bool
	}
	deskState struct {
		Codes     map[string]deskCode
		Outbox    []outboxEvent
		Conflicts map[string]serverConflict // by second event
		// History is the desk's redemption and undo rows of each label,
		// as text: the facts of an I10 failure.
		History map[string][]string
	}
)

func (d *desk) read(ctx context.Context) (deskState, error) {
	db := d.db.SQL()
	st := deskState{Codes: map[string]deskCode{}, Conflicts: map[string]serverConflict{}, History: map[string][]string{}}
	err := eachRow(ctx, db, `SELECT code, status, expire_at FROM codes`, func(rows *sql.Rows) error {
		var code string
		var c deskCode
		err := rows.Scan(&code, &c.Status, &c.ExpireAt)
		st.Codes[code] = c
		return err
	})
	if err != nil {
		return st, fmt.Errorf("desk %s codes: %w", deskName(d.idx), err)
	}
	err = eachRow(ctx, db, `SELECT event_id, kind, code, state, result, at, offline FROM outbox ORDER BY id`, func(rows *sql.Rows) error {
		var e outboxEvent
		err := rows.Scan(&e.EventID, &e.Kind, &e.Code, &e.State, &e.Result, &e.At, &e.Offline)
		st.Outbox = append(st.Outbox, e)
		return err
	})
	if err != nil {
		return st, fmt.Errorf("desk %s outbox: %w", deskName(d.idx), err)
	}
	err = eachRow(ctx, db, `SELECT code, first_event, first_station, second_event, second_station, first_at, second_at FROM conflicts`, func(rows *sql.Rows) error {
		var k serverConflict
		err := rows.Scan(&k.Code, &k.FirstEvent, &k.FirstStation, &k.SecondEvent, &k.SecondStation, &k.FirstAt, &k.SecondAt)
		st.Conflicts[k.SecondEvent] = k
		return err
	})
	if err != nil {
		return st, fmt.Errorf("desk %s conflicts: %w", deskName(d.idx), err)
	}
	err = eachRow(ctx, db, `SELECT c.code, 'redemption ' || r.trace_id || ' by ' || r.station || ' at ' || r.redeemed_at || ', undone at ' || r.undone_at || ', own ' || r.own
			FROM redemptions r JOIN codes c ON c.id = r.code_id
		UNION ALL SELECT c.code, 'undo ' || u.event_id || ' of ' || u.undoes || ' by ' || u.station || ' at ' || u.at || CASE WHEN u.refused <> '' THEN ', refused' ELSE '' END
			FROM undos u JOIN codes c ON c.id = u.code_id`, func(rows *sql.Rows) error {
		var code, row string
		err := rows.Scan(&code, &row)
		st.History[code] = append(st.History[code], row)
		return err
	})
	if err != nil {
		return st, fmt.Errorf("desk %s history: %w", deskName(d.idx), err)
	}
	return st, nil
}

// expireEvents are the expire events in the desk's outbox (a close's,
// or 'qrdesk expire”s).
func (d *desk) expireEvents(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	err := eachRow(ctx, d.db.SQL(), `SELECT event_id FROM outbox WHERE kind = 'expire'`, func(rows *sql.Rows) error {
		var id string
		err := rows.Scan(&id)
		out[id] = true
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("desk %s outbox: %w", deskName(d.idx), err)
	}
	return out, nil
}

// eachRow runs a query on the desk's database and calls scan for every row.
func eachRow(ctx context.Context, db *sql.DB, query string, scan func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, query)
	return scanEach(rows, err, scan)
}

// scanEach calls scan for every row of a query's result.
func scanEach(rows *sql.Rows, err error, scan func(*sql.Rows) error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ownFigures are the desk's own figures for [from, to): issued, and
// redeemed less undone. It assumes the desk's day figures
// (store.DB.DayFigures, as close-day, 'stats' and Today count them) are
// this desk's own, as issue 17 item 6 asks: on main they count every
// desk's redemptions the feed brought. The one place to adapt when the
// desk's API names its own figures apart.
func (d *desk) ownFigures(ctx context.Context, from, to int64) (dayRow, error) {
	f, err := d.db.DayFigures(ctx, time.Unix(from, 0).Format("2006-01-02"), d.name, from, to)
	if err != nil {
		return dayRow{}, fmt.Errorf("desk %s day figures: %w", deskName(d.idx), err)
	}
	return dayRow{Issued: f.Issued, Redeemed: f.Redeemed, Conflicts: f.Conflicts}, nil
}

// ownRedemptions are the labels of the desk's own redemptions as its day
// figures count them (store/dayfigures.go's ownRedemption), by event id: the facts of an I7 failure.
func (d *desk) ownRedemptions(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	rows, err := d.db.SQL().QueryContext(ctx, `SELECT r.trace_id, c.code FROM redemptions r JOIN codes c ON c.id = r.code_id
		WHERE r.own = 1 AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = r.trace_id AND o.kind = 'redeem'
			AND (CASE WHEN json_valid(o.result) THEN json_extract(o.result, '$.outcome') END) = 'conflict')
		AND (r.undone_at = 0 OR (EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = r.trace_id AND o.kind = 'redeem'
			AND (CASE WHEN json_valid(o.result) THEN json_extract(o.result, '$.outcome') END) = 'redeemed')
			AND NOT EXISTS (SELECT 1 FROM undos u WHERE u.undoes = r.trace_id AND u.refused = '')))`)
	return out, scanEach(rows, err, func(rows *sql.Rows) error {
		var id, code string
		err := rows.Scan(&id, &code)
		out[id] = code
		return err
	})
}
