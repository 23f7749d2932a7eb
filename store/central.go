package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"qrdesk/app"
	"qrdesk/server"
)

// CentralDB is qrdesk-server's SQLite database (PostgreSQL is the other
// implementation of server.Store).
type CentralDB struct {
	db       *sql.DB
	path     string
	postgres bool
	// writeMu queues this process's SQLite writers in Go: waiting in
	// SQLite's busy handler sleeps in steps of up to 100 ms, which is what
	// made the p99 of 64 concurrent clients exceed a second.
	writeMu sync.Mutex

	groupOnce sync.Once     // starts the SQLite group committer on first use
	jobs      chan groupJob // events waiting for the next group commit
}

// begin starts a writing transaction.
func (c *CentralDB) begin(ctx context.Context) (*sql.Tx, func(), error) {
	if c.postgres {
		tx, err := c.db.BeginTx(ctx, nil)
		return tx, func() {}, err
	}
	c.writeMu.Lock()
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		c.writeMu.Unlock()
		return nil, nil, err
	}
	return tx, c.writeMu.Unlock, nil
}

// q writes a query for the engine: PostgreSQL numbers its parameters.
func (c *CentralDB) q(query string) string {
	if !c.postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

var _ server.Store = (*CentralDB)(nil)

// OpenCentral opens (creating if needed) the server database: a SQLite
// file, or PostgreSQL when path is a postgres:// URL.
func OpenCentral(ctx context.Context, path string) (*CentralDB, error) {
	if strings.HasPrefix(path, "postgres://") || strings.HasPrefix(path, "postgresql://") {
		return openCentralPostgres(ctx, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	sqldb, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, err
	}
	if err := migrate(ctx, sqldb, "migrations/central"); err != nil {
		sqldb.Close()
		return nil, (&DB{path: path}).wrap(err, "cannot open the server database %s", path)
	}
	return &CentralDB{db: sqldb, path: path}, nil
}

func (c *CentralDB) Close() error {
	c.groupOnce.Do(func() {}) // no committer may start after this
	if c.jobs != nil {
		close(c.jobs)
	}
	return c.db.Close()
}

func (c *CentralDB) RingID(ctx context.Context) (string, error) {
	var id string
	err := c.db.QueryRowContext(ctx, c.q(`SELECT value FROM deployment WHERE key = 'ring_id'`)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

func (c *CentralDB) BindRing(ctx context.Context, id string) (string, error) {
	if _, err := c.db.ExecContext(ctx, c.q(`INSERT INTO deployment (key, value) VALUES ('ring_id', ?) ON CONFLICT (key) DO NOTHING`), id); err != nil {
		return "", err
	}
	return c.RingID(ctx)
}

func (c *CentralDB) AddStation(ctx context.Context, name, tokenHash string, at int64) error {
	_, err := c.db.ExecContext(ctx, c.q(`INSERT INTO stations (name, token_hash, created_at) VALUES (?, ?, ?)`), name, tokenHash, at)
	if isUniqueAny(err) {
		return server.ErrStationExists
	}
	return err
}

func (c *CentralDB) RevokeStation(ctx context.Context, name string, at int64) error {
	res, err := c.db.ExecContext(ctx, c.q(`UPDATE stations SET revoked_at = ? WHERE name = ? AND revoked_at = 0`), at, name)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return server.ErrNoStation
	}
	return nil
}

func (c *CentralDB) Stations(ctx context.Context) ([]server.Station, error) {
	rows, err := c.db.QueryContext(ctx, c.q(`SELECT id, name, created_at, revoked_at FROM stations ORDER BY name`))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []server.Station
	for rows.Next() {
		var s server.Station
		if err := rows.Scan(&s.ID, &s.Name, &s.CreatedAt, &s.RevokedAt); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (c *CentralDB) StationByToken(ctx context.Context, tokenHash string) (server.Station, error) {
	var s server.Station
	err := c.db.QueryRowContext(ctx, c.q(`SELECT id, name, created_at, revoked_at FROM stations WHERE token_hash = ? AND revoked_at = 0`), tokenHash).
		Scan(&s.ID, &s.Name, &s.CreatedAt, &s.RevokedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return s, server.ErrUnauthorized
	}
	return s, err
}

func (c *CentralDB) UploadBatch(ctx context.Context, st server.Station, codes []server.CodeIn, at int64) (int, error) {
	tx, done, err := c.begin(ctx)
	if err != nil {
		return 0, err
	}
	defer done()
	defer tx.Rollback()
	added := 0
	for _, code := range codes {
		var serial, stationID any
		if code.StationID != "" {
			serial, stationID = code.Serial, code.StationID
		}
		res, err := tx.ExecContext(ctx, c.q(`INSERT INTO codes (code, random, prefix, label_date, station_id, serial, issued_by, expire_at, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (code) DO NOTHING`),
			code.Code, code.Random, code.Prefix, code.LabelDate, stationID, serial, st.Name, code.ExpireAt, code.CreatedAt)
		if isUniqueAny(err) {
			return 0, &server.BadRequest{Reason: "code " + code.Code + " repeats the serial of another code: two stations share a station letter; give each station its own letter"}
		}
		if err != nil {
			return 0, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			added++
			data, _ := json.Marshal(map[string]any{"expire_at": code.ExpireAt, "created_at": code.CreatedAt})
			if err := c.addChange(ctx, tx, "code", code.Code, st.Name, string(data)); err != nil {
				return 0, err
			}
		}
	}
	return added, tx.Commit()
}

func (c *CentralDB) addChange(ctx context.Context, tx *sql.Tx, kind, code, station, data string) error {
	if c.postgres {
		// Feed readers follow seq: writers that add changes take turns, so
		// no change commits behind a cursor a station already passed.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(8427)`); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, c.q(`INSERT INTO changes (kind, code, station, data) VALUES (?, ?, ?, ?)`), kind, code, station, data)
	return err
}

func (c *CentralDB) Apply(ctx context.Context, st server.Station, evs []server.Event, at int64) ([]server.Result, error) {
	out := make([]server.Result, 0, len(evs))
	for _, ev := range evs {
		r, err := c.applyOne(ctx, st, ev, at)
		if isUniqueAny(err) {
			// The same event arrived twice at once (a retry racing the
			// original): the other one committed; answer as it did.
			r, err = c.applyOne(ctx, st, ev, at)
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// applyOne applies one event: on PostgreSQL in its own transaction, on
// SQLite through the group committer.
func (c *CentralDB) applyOne(ctx context.Context, st server.Station, ev server.Event, now int64) (server.Result, error) {
	if !c.postgres {
		return c.groupApply(ctx, st, ev, now)
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return server.Result{}, err
	}
	defer tx.Rollback()
	r, err := c.applyInTx(ctx, tx, st, ev, now)
	if err != nil {
		return server.Result{}, err
	}
	return r, tx.Commit()
}

// applyInTx decides one event inside tx: the duplicate check, the guarded
// change, the event row.
func (c *CentralDB) applyInTx(ctx context.Context, tx *sql.Tx, st server.Station, ev server.Event, now int64) (server.Result, error) {
	var stored string
	err := tx.QueryRowContext(ctx, c.q(`SELECT detail FROM events WHERE event_id = ?`), ev.EventID).Scan(&stored)
	if err == nil {
		var r server.Result
		json.Unmarshal([]byte(stored), &r)
		r.Duplicate = true
		return r, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return server.Result{}, err
	}
	var r server.Result
	switch ev.Kind {
	case "redeem":
		r, err = c.redeem(ctx, tx, st, ev, now)
	case "disable", "enable":
		r, err = c.setDisabled(ctx, tx, st, ev)
	default:
		r = server.Result{Outcome: "rejected", Reason: "unknown event kind " + ev.Kind}
	}
	if err != nil {
		return server.Result{}, err
	}
	r.EventID = ev.EventID
	if r.Outcome == "unknown" {
		// Not recorded: the station sends it again once the desk that issued
		// the code has uploaded it.
		return r, nil
	}
	detail, _ := json.Marshal(r)
	_, err = tx.ExecContext(ctx, c.q(`INSERT INTO events (event_id, station, kind, code, operator, at, received_at, offline, outcome, detail)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), ev.EventID, st.Name, ev.Kind, ev.Code, ev.Operator, ev.At, now, ev.Offline, r.Outcome, string(detail))
	return r, err
}

type centralCode struct {
	status, usedStation, usedOperator, usedEvent, reason string
	usedAt, expireAt                                     int64
}

func (c *CentralDB) readCode(ctx context.Context, tx *sql.Tx, code string) (centralCode, error) {
	var cc centralCode
	err := tx.QueryRowContext(ctx, c.q(`SELECT status, used_at, used_station, used_operator, used_event, disabled_reason, expire_at FROM codes WHERE code = ?`), code).
		Scan(&cc.status, &cc.usedAt, &cc.usedStation, &cc.usedOperator, &cc.usedEvent, &cc.reason, &cc.expireAt)
	return cc, err
}

// redeemCentral is the guarded UPDATE. Online, "when" is the server's
// clock; offline events keep the station's time. A code already used when
// an offline redemption arrives is a conflict: both facts are kept and the
// earlier redemption stays the one of record.
func (c *CentralDB) redeem(ctx context.Context, tx *sql.Tx, st server.Station, ev server.Event, now int64) (server.Result, error) {
	when := now
	if ev.Offline {
		when = ev.At
	}
	res, err := tx.ExecContext(ctx, c.q(`UPDATE codes SET status = 'used', used_at = ?, used_station = ?, used_operator = ?, used_event = ?
		WHERE code = ? AND status = 'unused' AND (expire_at = 0 OR expire_at > ?)`), when, st.Name, ev.Operator, ev.EventID, ev.Code, when)
	if err != nil {
		return server.Result{}, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		data, _ := json.Marshal(map[string]any{"at": when, "operator": ev.Operator, "event_id": ev.EventID})
		return server.Result{Outcome: "redeemed", UsedAt: when, UsedStation: st.Name, UsedOperator: ev.Operator}, c.addChange(ctx, tx, "redeem", ev.Code, st.Name, string(data))
	}
	cc, err := c.readCode(ctx, tx, ev.Code)
	if errors.Is(err, sql.ErrNoRows) {
		return server.Result{Outcome: "unknown", Reason: "the server has no such code: upload the batch first"}, nil
	}
	if err != nil {
		return server.Result{}, err
	}
	switch {
	case cc.status == "used" && ev.Offline:
		first := server.Conflict{Code: ev.Code, FirstEvent: cc.usedEvent, FirstStation: cc.usedStation, FirstOperator: cc.usedOperator, FirstAt: cc.usedAt,
			SecondEvent: ev.EventID, SecondStation: st.Name, SecondOperator: ev.Operator, SecondAt: when}
		if when < cc.usedAt { // this one came first: it becomes the redemption of record
			first = server.Conflict{Code: ev.Code, FirstEvent: ev.EventID, FirstStation: st.Name, FirstOperator: ev.Operator, FirstAt: when,
				SecondEvent: cc.usedEvent, SecondStation: cc.usedStation, SecondOperator: cc.usedOperator, SecondAt: cc.usedAt}
			if _, err := tx.ExecContext(ctx, c.q(`UPDATE codes SET used_at = ?, used_station = ?, used_operator = ?, used_event = ? WHERE code = ?`),
				when, st.Name, ev.Operator, ev.EventID, ev.Code); err != nil {
				return server.Result{}, err
			}
		}
		if _, err := tx.ExecContext(ctx, c.q(`INSERT INTO conflicts (code, first_event, first_station, first_operator, first_at, second_event, second_station, second_operator, second_at, detected_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), first.Code, first.FirstEvent, first.FirstStation, first.FirstOperator, first.FirstAt,
			first.SecondEvent, first.SecondStation, first.SecondOperator, first.SecondAt, now); err != nil {
			return server.Result{}, err
		}
		data, _ := json.Marshal(first)
		if err := c.addChange(ctx, tx, "conflict", ev.Code, st.Name, string(data)); err != nil {
			return server.Result{}, err
		}
		return server.Result{Outcome: "conflict", UsedAt: first.FirstAt, UsedStation: first.FirstStation, UsedOperator: first.FirstOperator,
			Reason: "redeemed at two stations while offline"}, nil
	case cc.status == "used":
		return server.Result{Outcome: "already_used", UsedAt: cc.usedAt, UsedStation: cc.usedStation, UsedOperator: cc.usedOperator}, nil
	case cc.status == "disabled":
		return server.Result{Outcome: "disabled", Reason: cc.reason}, nil
	default:
		return server.Result{Outcome: "expired", Reason: "expired at " + app.FormatTime(cc.expireAt)}, nil
	}
}

func (c *CentralDB) setDisabled(ctx context.Context, tx *sql.Tx, st server.Station, ev server.Event) (server.Result, error) {
	q := `UPDATE codes SET status = 'disabled', disabled_reason = ? WHERE code = ? AND status = 'unused'`
	if ev.Kind == "enable" {
		q = `UPDATE codes SET status = 'unused', disabled_reason = ? WHERE code = ? AND status = 'disabled'`
		ev.Reason = ""
	}
	res, err := tx.ExecContext(ctx, q, ev.Reason, ev.Code)
	if err != nil {
		return server.Result{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		cc, err := c.readCode(ctx, tx, ev.Code)
		if errors.Is(err, sql.ErrNoRows) {
			return server.Result{Outcome: "rejected", Reason: "the server has no such code"}, nil
		}
		if err != nil {
			return server.Result{}, err
		}
		return server.Result{Outcome: "rejected", Reason: "the code is " + cc.status}, nil
	}
	data, _ := json.Marshal(map[string]any{"reason": ev.Reason, "operator": ev.Operator, "at": ev.At})
	return server.Result{Outcome: ev.Kind + "d"}, c.addChange(ctx, tx, ev.Kind, ev.Code, st.Name, string(data))
}

func (c *CentralDB) Changes(ctx context.Context, after int64, limit int) ([]server.Change, error) {
	rows, err := c.db.QueryContext(ctx, c.q(`SELECT seq, kind, code, station, data FROM changes WHERE seq > ? ORDER BY seq LIMIT ?`), after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []server.Change{}
	for rows.Next() {
		var ch server.Change
		if err := rows.Scan(&ch.Seq, &ch.Kind, &ch.Code, &ch.Station, &ch.Data); err != nil {
			return nil, err
		}
		out = append(out, ch)
	}
	return out, rows.Err()
}

func (c *CentralDB) Conflicts(ctx context.Context, from, to int64) ([]server.Conflict, error) {
	rows, err := c.db.QueryContext(ctx, c.q(`SELECT code, first_event, first_station, first_operator, first_at, second_event, second_station, second_operator, second_at
		FROM conflicts WHERE first_at >= ? AND first_at < ? ORDER BY first_at`), from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []server.Conflict{}
	for rows.Next() {
		var k server.Conflict
		if err := rows.Scan(&k.Code, &k.FirstEvent, &k.FirstStation, &k.FirstOperator, &k.FirstAt, &k.SecondEvent, &k.SecondStation, &k.SecondOperator, &k.SecondAt); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// SQLForTests exposes the handle to this module's tests.
func (c *CentralDB) SQLForTests() *sql.DB { return c.db }

// QueryRowForTests runs a read-only query written with ? placeholders on
// either engine (this module's tests).
func (c *CentralDB) QueryRowForTests(query string, args ...any) *sql.Row {
	return c.db.QueryRow(c.q(query), args...)
}
