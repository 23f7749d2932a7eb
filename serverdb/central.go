package serverdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"qrdesk/protocol"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/internal/sqlstore"
)

// DB is qrdesk-server's database: a SQLite file, or PostgreSQL.
// Every statement goes through the engine seam (engine.go).
type DB struct {
	e    *engine
	path string

	groupOnce sync.Once     // starts the SQLite group committer on first use
	jobs      chan groupJob // events waiting for the next group commit

	placeMu      sync.Mutex // one PostgreSQL feed placing at a time in this process
	placeStarted time.Time  // when the last one that succeeded began

	// replica: this is a streaming read replica's copy (OpenReplica), read
	// by Replica only. It never places and never writes.
	replica bool

	stationsGen atomic.Int64 // StationsChanged
}

var _ central.Store = (*DB)(nil)

// uploadPiece is how many codes of an uploaded batch one transaction
// stores: a big batch never holds the write lock for long, so other
// desks' scans keep their normal latency while it is ingested.
const uploadPiece = 500

// Open opens (creating if needed) the server database: a SQLite
// file, or PostgreSQL when path is a postgres:// URL.
func Open(ctx context.Context, path string) (*DB, error) {
	if isPostgres(path) {
		return openCentralPostgres(ctx, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	sqldb, err := sql.Open("sqlite", sqlstore.DSN(path, sqlstore.BusyTimeout))
	if err != nil {
		return nil, err
	}
	// Keep the connections: opening one (pragmas, schema) cost a third of
	// the server's CPU under 1,000 desks when the pool kept only two idle.
	sqldb.SetMaxOpenConns(32)
	sqldb.SetMaxIdleConns(32)
	c := &DB{e: &engine{db: sqldb}, path: path}
	if err := migrate(ctx, c.e, centralMigrations); err != nil {
		sqldb.Close()
		if msg := newerMessage(err); msg != "" {
			return nil, app.Errorf(app.KindUnavailable, "cannot open the server database %s: %s", path, msg)
		}
		return nil, sqlstore.Wrap(err, path, "cannot open the server database %s", path)
	}
	if err := c.bindLetters(ctx); err != nil {
		sqldb.Close()
		return nil, sqlstore.Wrap(err, path, "cannot open the server database %s", path)
	}
	return c, nil
}

// openCentralPostgres opens qrdesk-server's PostgreSQL database and applies
// its migrations.
func openCentralPostgres(ctx context.Context, url string) (*DB, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL address: %w", err)
	}
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("cannot reach PostgreSQL (check the address, that the server runs, and the password): %w", err)
	}
	c := &DB{e: &engine{db: db, postgres: true}, path: url}
	if err := migrate(ctx, c.e, postgresMigrations); err != nil {
		db.Close()
		if msg := newerMessage(err); msg != "" {
			return nil, app.Errorf(app.KindUnavailable, "cannot open the PostgreSQL database: %s", msg)
		}
		return nil, fmt.Errorf("cannot prepare the PostgreSQL database: %w", err)
	}
	if err := c.bindLetters(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("cannot prepare the PostgreSQL database: %w", err)
	}
	return c, nil
}

func (c *DB) Close() error {
	c.groupOnce.Do(func() {}) // no committer may start after this
	if c.jobs != nil {
		close(c.jobs)
	}
	c.e.stmts.close()
	return c.e.db.Close()
}

func (c *DB) RingID(ctx context.Context) (string, error) {
	var id string
	err := c.e.queryRow(ctx, `SELECT value FROM deployment WHERE key = 'ring_id'`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

func (c *DB) BindRing(ctx context.Context, id string) (string, error) {
	if _, err := c.e.exec(ctx, `INSERT INTO deployment (key, value) VALUES ('ring_id', ?) ON CONFLICT (key) DO NOTHING`, id); err != nil {
		return "", err
	}
	return c.RingID(ctx)
}

func (c *DB) ResetRing(ctx context.Context) error {
	_, err := c.e.exec(ctx, `DELETE FROM deployment WHERE key = 'ring_id'`)
	return err
}

func (c *DB) AddStation(ctx context.Context, st central.Station, tokenHash string) error {
	if err := central.ValidateStation(st); err != nil {
		return err
	}
	site, err := c.siteID(ctx, st.Site)
	if err != nil {
		return err
	}
	_, err = c.e.exec(ctx, `INSERT INTO stations (name, token_hash, letter, created_at, site) VALUES (?, ?, ?, ?, ?)`, st.Name, tokenHash, st.Letter, st.CreatedAt, site)
	if isUniqueAny(err) {
		return c.whyTaken(ctx, st)
	}
	return err
}

// whyTaken explains a refused enrolment: the name or the letter is taken.
func (c *DB) whyTaken(ctx context.Context, st central.Station) error {
	var holder string
	if st.Letter != "" {
		if err := c.e.queryRow(ctx, `SELECT name FROM stations WHERE letter = ?`, st.Letter).Scan(&holder); err == nil && holder != st.Name {
			return &central.LetterTaken{Letter: st.Letter, Holder: holder}
		}
	}
	return central.ErrStationExists
}

// SetStationLetter binds a letter to a station enrolled without one.
func (c *DB) SetStationLetter(ctx context.Context, name, letter string) error {
	defer c.stationsChanged()
	if err := central.ValidateStation(central.Station{Name: name, Letter: letter}); err != nil {
		return err
	}
	res, err := c.e.exec(ctx, `UPDATE stations SET letter = ? WHERE name = ? AND (letter = '' OR letter = ?)`, letter, name, letter)
	if isUniqueAny(err) {
		return c.whyTaken(ctx, central.Station{Name: name, Letter: letter})
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var cur string
		if err := c.e.queryRow(ctx, `SELECT letter FROM stations WHERE name = ?`, name).Scan(&cur); err != nil {
			return central.ErrNoStation
		}
		return central.Badf("station %q already issues with letter %s: a letter cannot change once codes carry it", name, cur)
	}
	return nil
}

func (c *DB) RenewStation(ctx context.Context, name, tokenHash string) error {
	defer c.stationsChanged()
	res, err := c.e.exec(ctx, `UPDATE stations SET token_hash = ?, revoked_at = 0 WHERE name = ?`, tokenHash, name)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return central.ErrNoStation
	}
	return nil
}

func (c *DB) RevokeStation(ctx context.Context, name string, at int64) error {
	defer c.stationsChanged()
	res, err := c.e.exec(ctx, `UPDATE stations SET revoked_at = ? WHERE name = ? AND revoked_at = 0`, at, name)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var revokedAt int64
		if err := c.e.queryRow(ctx, `SELECT revoked_at FROM stations WHERE name = ?`, name).Scan(&revokedAt); err != nil {
			return central.ErrNoStation
		}
		return central.ErrAlreadyRevoked
	}
	return nil
}

func (c *DB) Stations(ctx context.Context) ([]central.Station, error) {
	rows, err := c.e.query(ctx, `SELECT t.id, t.name, t.letter, t.created_at, t.revoked_at, t.site, s.name FROM stations t JOIN sites s ON s.id = t.site ORDER BY t.name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []central.Station
	for rows.Next() {
		var s central.Station
		if err := rows.Scan(&s.ID, &s.Name, &s.Letter, &s.CreatedAt, &s.RevokedAt, &s.SiteID, &s.Site); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (c *DB) StationByToken(ctx context.Context, tokenHash string) (central.Station, error) {
	s := central.Station{TokenHash: tokenHash}
	err := c.e.queryRow(ctx, `SELECT t.id, t.name, t.letter, t.created_at, t.revoked_at, t.writes, t.site, t.site_from, s.name
		FROM stations t JOIN sites s ON s.id = t.site WHERE t.token_hash = ?`, tokenHash).
		Scan(&s.ID, &s.Name, &s.Letter, &s.CreatedAt, &s.RevokedAt, &s.Writes, &s.SiteID, &s.SiteFrom, &s.Site)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return s, central.ErrUnauthorized
	case err == nil && s.RevokedAt != 0:
		return s, central.ErrRevoked
	}
	return s, err
}

// UploadBatch stores the codes in pieces of uploadPiece, each in its own
// transaction with one multi-row INSERT; a code already stored is skipped,
// so a retried upload adds nothing twice. A piece that added codes takes
// the station's next write number; write is the last one given (0: none).
func (c *DB) UploadBatch(ctx context.Context, st central.Station, codes []central.CodeIn, at int64) (added int, write int64, err error) {
	for len(codes) > 0 {
		n := min(len(codes), uploadPiece)
		k, w, err := c.uploadPiece(ctx, st, codes[:n])
		if err != nil {
			return added, write, err
		}
		added += k
		write = max(write, w)
		codes = codes[n:]
	}
	return added, write, nil
}

func (c *DB) uploadPiece(ctx context.Context, st central.Station, codes []central.CodeIn) (int, int64, error) {
	tx, err := c.e.begin(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer tx.done()
	changes, err := c.insertCodes(ctx, tx, st, codes)
	if err != nil {
		return 0, 0, err
	}
	added := len(changes)
	more, err := c.completeRefs(ctx, tx, st, codes, changes)
	if err != nil {
		return 0, 0, err
	}
	changes = append(changes, more...)
	if len(changes) == 0 {
		return 0, 0, nil // a retry: nothing written, no number
	}
	if err := c.addChanges(ctx, tx, changes...); err != nil {
		return 0, 0, err
	}
	write, err := nextWrite(ctx, tx, st)
	if err != nil {
		return 0, 0, err
	}
	return added, write, tx.commit()
}

// insertCodes stores the codes of an upload not stored yet and returns
// their feed changes. A replacement's new label is not stored here: only
// its replace event stores it, linked to the label it replaces
// (protocol.UploadCode.Replaces).
func (c *DB) insertCodes(ctx context.Context, tx *etx, st central.Station, all []central.CodeIn) ([]change, error) {
	var codes []central.CodeIn
	for _, in := range all {
		if in.Replaces == "" {
			codes = append(codes, in)
		}
	}
	if len(codes) == 0 {
		return nil, nil
	}
	var q strings.Builder
	q.WriteString(`INSERT INTO codes (code, random, prefix, label_date, station_id, serial, issued_by, expire_at, created_at, ref, batch, site) VALUES `)
	args := make([]any, 0, 12*len(codes))
	for i, code := range codes {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		var serial, stationID any
		if code.StationID != "" {
			serial, stationID = code.Serial, code.StationID
		}
		args = append(args, code.Code, code.Random, code.Prefix, code.LabelDate, stationID, serial, st.Name, code.ExpireAt, code.CreatedAt, code.Ref, code.Batch, stationSite(st))
	}
	q.WriteString(` ON CONFLICT (code) DO NOTHING RETURNING code, expire_at, created_at, ref`)
	rows, err := tx.query(ctx, q.String(), args...)
	if err == nil {
		var changes []change
		if changes, err = codeChanges(rows, st); err == nil {
			return changes, nil
		}
	}
	if isUniqueAny(err) {
		return nil, central.Badf("a code of this batch repeats the serial of another code: two desks share station letter %s; give each desk its own letter", st.Letter)
	}
	return nil, err
}

// codeChanges reads rows of (code, expire_at, created_at, ref) into the
// feed's code changes, and closes them.
func codeChanges(rows *sql.Rows, st central.Station) ([]change, error) {
	defer rows.Close()
	var changes []change
	for rows.Next() {
		var code, ref string
		var expire, created int64
		if err := rows.Scan(&code, &expire, &created, &ref); err != nil {
			return nil, err
		}
		changes = append(changes, change{kind: protocol.KindCode, code: code, station: st.Name, data: codeData(expire, created, ref)})
	}
	// An INSERT or UPDATE … RETURNING reports a refused write here.
	return changes, writeFailure(rows.Err())
}

// codeData is a code change's data: what a desk stores of a label beside
// its code (the ref only when there is one, as an older server's feed).
func codeData(expireAt, createdAt int64, ref string) string {
	m := map[string]any{"expire_at": expireAt, "created_at": createdAt}
	if ref != "" {
		m["ref"] = ref
	}
	data, _ := json.Marshal(m)
	return string(data)
}

// completeRefs gives the codes of an upload the server held already
// without a ref (a replacement's new label, stored from its replace event
// before its batch arrived) the ref and batch number the upload carries,
// if the station uploading them issued them; each such label goes to the
// feed again, with its ref. added are the changes of the codes the upload
// stored: those have theirs.
func (c *DB) completeRefs(ctx context.Context, tx *etx, st central.Station, codes []central.CodeIn, added []change) ([]change, error) {
	stored := make(map[string]bool, len(added))
	for _, ch := range added {
		stored[ch.code] = true
	}
	type key struct {
		ref   string
		batch int64
	}
	groups := map[key][]any{}
	var order []key
	for _, in := range codes {
		if in.Ref == "" || stored[in.Code] {
			continue
		}
		k := key{in.Ref, in.Batch}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], in.Code)
	}
	var out []change
	for _, k := range order {
		list := groups[k]
		q := `UPDATE codes SET ref = ?, batch = ? WHERE ref = '' AND issued_by = ? AND code IN (` + placeholders(len(list)) + `)
			RETURNING code, expire_at, created_at, ref`
		rows, err := tx.query(ctx, q, append([]any{k.ref, k.batch, st.Name}, list...)...)
		if err != nil {
			return nil, err
		}
		more, err := codeChanges(rows, st)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// stationSite is the site a station's uploads belong to: the first site
// for a station value made without one (tests).
func stationSite(st central.Station) int64 {
	if st.SiteID == 0 {
		return 1
	}
	return st.SiteID
}

// change is one entry for the feed.
type change struct{ kind, code, station, data string }

func (c *DB) addChanges(ctx context.Context, tx *etx, changes ...change) error {
	if len(changes) == 0 {
		return nil
	}
	// No lock here: on PostgreSQL the feed position is given after commit
	// (placeChanges); on SQLite writers are one at a time, so seq order is
	// commit order.
	var q strings.Builder
	// A change goes to its label's site; one without a label (the staff
	// list) to every site (0).
	q.WriteString(`INSERT INTO changes (kind, code, station, data, tag, site) VALUES `)
	args := make([]any, 0, 6*len(changes))
	for i, ch := range changes {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?, ?, COALESCE((SELECT site FROM codes WHERE code = ?), 0))")
		args = append(args, ch.kind, ch.code, ch.station, ch.data, changeTag(), ch.code)
	}
	if _, err := tx.exec(ctx, q.String(), args...); err != nil {
		return err
	}
	return addHolderChanges(ctx, tx, changes)
}

// holderSites selects (one column, site) the sites whose desks hold a
// copy of the label (the caller leaves out the label's own): the current
// site of every station with an event on it or on another label of its
// entitlement (a desk of another site redeemed it, was refused it, undid
// it, replaced it), or that issued one of them (a North desk's replacement
// of a main label is main's, and the North desk holds it). A replace
// change carries both labels, so a desk holding one holds the other. A
// desk's copy of a label follows every change of it, whatever site the
// label is (design.md, "Sites"). Its four arguments are the label's code.
const holderSites = `SELECT t.site FROM stations t WHERE t.name IN (
			SELECT e.station FROM events e WHERE e.code IN (` + entitlementLabels + `)
			UNION SELECT m.issued_by FROM codes m WHERE m.code IN (` + entitlementLabels + `))`

// entitlementLabels selects (one column, code) the label given twice as
// an argument and the other labels of its entitlement.
const entitlementLabels = `SELECT CAST(? AS TEXT) UNION SELECT m.code FROM codes m
			WHERE m.entitlement <> '' AND m.entitlement = (SELECT l.entitlement FROM codes l WHERE l.code = ?)`

// addHolderChanges writes each change of a label again for every other
// site holding a copy (holderSites) and, for a conflict, the sites of its
// two desks (the second use may be of another label of the entitlement),
// at positions of their own.
func addHolderChanges(ctx context.Context, tx *etx, changes []change) error {
	var q strings.Builder
	var args []any
	for _, ch := range changes {
		// A label's upload goes to its site alone: nothing else holds a
		// label before it is uploaded (a desk that redeemed it first holds
		// its own redemption). Batches come 500 labels a transaction, and
		// a union of 500 holder queries took SQLite minutes to plan.
		if ch.code == "" || ch.kind == protocol.KindCode {
			continue
		}
		if q.Len() > 0 {
			q.WriteString(" UNION ALL ")
		}
		q.WriteString(`SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), h.site FROM (
			` + holderSites + ` UNION SELECT t.site FROM stations t WHERE t.name IN (?, ?)) h
			WHERE h.site <> COALESCE((SELECT site FROM codes WHERE code = ?), 0)`)
		var k central.Conflict
		if ch.kind == protocol.KindConflict {
			json.Unmarshal([]byte(ch.data), &k)
		}
		args = append(args, ch.kind, ch.code, ch.station, ch.data, changeTag(), ch.code, ch.code, ch.code, ch.code, k.FirstStation, k.SecondStation, ch.code)
	}
	if q.Len() == 0 {
		return nil
	}
	_, err := tx.exec(ctx, `INSERT INTO changes (kind, code, station, data, tag, site) `+q.String(), args...)
	return err
}

func (c *DB) Apply(ctx context.Context, st central.Station, evs []central.Event, at int64) ([]central.Result, error) {
	// A redemption and its undo sent together are one fact (the parcel
	// went out and came back): the redemption is decided knowing it.
	evs = central.MarkTakenBack(evs)
	if !c.e.postgres {
		return c.groupApplyAll(ctx, st, evs, at)
	}
	out := make([]central.Result, 0, len(evs))
	checked := false
	for _, ev := range evs {
		if ev.Kind == central.KindRedeem && !ev.Offline {
			r, done, err := c.redeemOnlineOneStatement(ctx, st, ev, at)
			if err != nil {
				return out, err
			}
			if done {
				out = append(out, r)
				continue
			}
			checked = true // the statement found the station active
		}
		if !checked {
			if err := stationActive(ctx, c.e.queryRow, st); err != nil {
				return out, err
			}
			checked = true
		}
		r, err := c.applyOne(ctx, st, ev, at, false)
		if isUniqueAny(err) {
			// The event id is known (sent before, or a retry racing the
			// original): decide again knowing it.
			r, err = c.applyOne(ctx, st, ev, at, true)
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// stationActive returns ErrRevoked when the station was revoked, or its
// token renewed since it was looked up: Apply may be given a station from
// a cache of token lookups.
func stationActive(ctx context.Context, queryRow func(context.Context, string, ...any) writeRow, st central.Station) error {
	var n int
	err := queryRow(ctx, `SELECT count(*) FROM stations WHERE id = ? AND token_hash = ? AND revoked_at = 0`, st.ID, st.TokenHash).Scan(&n)
	if err == nil && n == 0 {
		return central.ErrRevoked
	}
	return err
}

// applyOne applies one event in its own transaction (PostgreSQL; SQLite
// goes through the group committer). The event id is first assumed new
// (known says otherwise): a known id makes the event row's insert fail at
// the end, the transaction is rolled back whole, and Apply decides again
// with known set. Two round trips fewer for every event.
func (c *DB) applyOne(ctx context.Context, st central.Station, ev central.Event, now int64, known bool) (central.Result, error) {
	tx, err := c.e.begin(ctx)
	if err != nil {
		return central.Result{}, err
	}
	defer tx.done()
	var r central.Result
	if known {
		r, err = c.applyInTx(ctx, tx, st, ev, now)
	} else {
		r, err = c.decide(ctx, tx, st, ev, now, false)
		if err == nil && r.Outcome == central.OutcomeUnknown {
			// Not recorded, so no insert checked the id: check it here.
			r, err = c.applyInTx(ctx, tx, st, ev, now)
		}
	}
	if err != nil {
		return central.Result{}, err
	}
	return r, tx.commit()
}

// storedEvent is an event row.
type storedEvent struct {
	ev      central.Event
	station string
	outcome string
	detail  string
	write   int64 // the station's write number given to it
}

func (c *DB) readEvent(ctx context.Context, tx *etx, id string) (storedEvent, error) {
	var s storedEvent
	err := tx.queryRow(ctx, `SELECT event_id, station, kind, code, operator, at, offline, reason, outcome, detail, undoes, write_no FROM events WHERE event_id = ?`, id).
		Scan(&s.ev.EventID, &s.station, &s.ev.Kind, &s.ev.Code, &s.ev.Operator, &s.ev.At, &s.ev.Offline, &s.ev.Reason, &s.outcome, &s.detail, &s.ev.Undoes, &s.write)
	return s, err
}

// applyInTx decides one event inside tx: the event's identity, the guarded
// change, the event row.
func (c *DB) applyInTx(ctx context.Context, tx *etx, st central.Station, ev central.Event, now int64) (central.Result, error) {
	prev, err := c.readEvent(ctx, tx, ev.EventID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return central.Result{}, err
	default:
		if same, what := central.SameEvent(prev.ev, prev.station, ev, st.Name); !same {
			return central.Result{}, &central.EventReused{EventID: ev.EventID, What: what, Taken: prev.station != st.Name}
		}
		if ev.Kind == central.KindRedeem && ev.Offline && !prev.ev.Offline && prev.outcome != central.OutcomeRedeemed {
			// The desk asked online, gave up waiting, and redeemed alone; the
			// server had answered no. The desk's redemption is a fact:
			// decide it as the offline event it is (a conflict when the
			// label was used elsewhere), never as a duplicate.
			return c.decide(ctx, tx, st, ev, now, true)
		}
		var r central.Result
		json.Unmarshal([]byte(prev.detail), &r)
		r.Duplicate, r.Write = true, prev.write
		// The label's status now, not when the event was first decided: a
		// desk sets its copy to it (its event waited in its outbox, so
		// it held back the changes since).
		if cc, err := c.readCode(ctx, tx, prev.ev.Code); err == nil {
			r.Status = cc.status
		} else if !errors.Is(err, sql.ErrNoRows) {
			return central.Result{}, err
		}
		return r, nil
	}
	return c.decide(ctx, tx, st, ev, now, false)
}

// decide applies a new event and records it (replace: over the row of the
// online attempt under the same id).
func (c *DB) decide(ctx context.Context, tx *etx, st central.Station, ev central.Event, now int64, replace bool) (central.Result, error) {
	var r central.Result
	var note central.Note
	decidedAt := now
	var err error
	switch ev.Kind {
	case central.KindRedeem:
		r, note, decidedAt, err = c.redeem(ctx, tx, st, ev, now)
	case central.KindDisable, central.KindEnable:
		r, note, err = c.setDisabled(ctx, tx, st, ev, now)
	case central.KindUndo:
		r, note, err = c.undo(ctx, tx, st, ev, now)
	case central.KindExpire:
		r, note, err = c.expire(ctx, tx, st, ev, now)
	case central.KindReplace:
		r, note, err = c.replaceLabel(ctx, tx, st, ev, now)
	case central.KindStaff:
		r, err = c.staffEvent(ctx, tx, st, ev)
	default:
		r = central.Result{Outcome: central.OutcomeRejected, Reason: "unknown event kind " + ev.Kind}
	}
	if err != nil {
		return central.Result{}, err
	}
	r.EventID = ev.EventID
	if ev.Kind == central.KindRedeem && r.Duplicate {
		return r, nil // recorded already, under the desk's first id (renumbered)
	}
	if r.Outcome == central.OutcomeUnknown {
		// Not recorded: the desk sends it again once the desk that issued
		// the code has uploaded it.
		return r, nil
	}
	detail, _ := json.Marshal(r)
	// A write number of its own, also for the online attempt's row taken
	// over: a server restored from a backup that holds the attempt but not
	// this decision has given fewer numbers than the desk holds.
	if r.Write, err = nextWrite(ctx, tx, st); err != nil {
		return central.Result{}, err
	}
	if replace {
		_, err = tx.exec(ctx, `UPDATE events SET offline = ?, outcome = ?, detail = ?, flag = ?, flags = ?, decided_at = ?, received_at = ?, write_no = ? WHERE event_id = ?`,
			ev.Offline, r.Outcome, string(detail), note.Text, note.Flags, decidedAt, now, r.Write, ev.EventID)
		return r, err
	}
	_, err = tx.exec(ctx, `INSERT INTO events (event_id, station, kind, code, operator, at, received_at, offline, outcome, detail, reason, flag, flags, decided_at, undoes, write_no)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, ev.EventID, st.Name, ev.Kind, ev.Code, ev.Operator, ev.At, now, ev.Offline, r.Outcome, string(detail), ev.Reason, note.Text, note.Flags, decidedAt, ev.Undoes, r.Write)
	return r, err
}

// nextWrite gives the station's next write number, in the transaction of
// the write it numbers (restore detection: see stations.writes).
func nextWrite(ctx context.Context, tx *etx, st central.Station) (int64, error) {
	var n int64
	err := tx.queryRow(ctx, `UPDATE stations SET writes = writes + 1 WHERE id = ? RETURNING writes`, st.ID).Scan(&n)
	return n, err
}

type centralCode struct {
	status, usedStation, usedOperator, usedEvent, reason string
	usedAt, expireAt, createdAt                          int64
	entitlement                                          string // its root label's code; "" never replaced
}

// selectCode reads one label's row, for scanCode.
const selectCode = `SELECT status, used_at, used_station, used_operator, used_event, disabled_reason, expire_at, created_at, entitlement FROM codes WHERE code = ?`

// readCode reads the label code as the statement finds it; a decision
// about it reads it under its lock instead (lockLabel).
func (c *DB) readCode(ctx context.Context, tx *etx, code string) (centralCode, error) {
	return scanCode(tx.queryRow(ctx, selectCode, code))
}

func scanCode(row writeRow) (centralCode, error) {
	var cc centralCode
	err := row.Scan(&cc.status, &cc.usedAt, &cc.usedStation, &cc.usedOperator, &cc.usedEvent, &cc.reason, &cc.expireAt, &cc.createdAt, &cc.entitlement)
	return cc, err
}

// redeem is the guarded UPDATE. Online, the server's clock decides and
// only an unused, unexpired label is redeemed. Offline, the desk already
// handed the parcel over: the label becomes used whatever the server
// thought of it (a disabled or expired one is flagged), at the desk's time
// if that is plausible. A label already used is a conflict: both facts are
// kept, and the earlier plausible redemption stays the one of record. The
// rules are central's (DecideTime, TakenOffline, RecordTakesOver); it
// returns the event's note and the time it was decided at.
func (c *DB) redeem(ctx context.Context, tx *etx, st central.Station, ev central.Event, now int64) (central.Result, central.Note, int64, error) {
	when, note := now, central.Note{}
	// The label under its lock (labellock.go): until this transaction ends
	// nothing else decides about it, so what the guarded UPDATE finds is
	// what cc says, and the answer is what this transaction records.
	cc, err := c.lockLabel(ctx, tx, ev.Code)
	if errors.Is(err, sql.ErrNoRows) {
		return central.Result{Outcome: central.OutcomeUnknown, Reason: "the server has no such code: upload the batch first"}, note, now, nil
	}
	if err != nil {
		return central.Result{}, note, now, err
	}
	set := `UPDATE codes SET status = 'used', used_at = ?, used_station = ?, used_operator = ?, used_event = ? `
	var ent string // the label's entitlement, as the UPDATE left it (central_replace.go)
	if ev.Offline {
		// The desk's time needs the label's issue time to be judged.
		when, note = central.DecideTime(ev, central.IssuedNotBefore(ev.Code, cc.createdAt, time.Local), now)
		// Its operator, by the server's staff list at that time.
		var removed int64
		if removed, err = c.staffRemovedAt(ctx, tx, ev.Operator, when); err != nil {
			return central.Result{}, note, when, err
		}
		note = central.ByRemovedStaff(note, ev.Operator, removed)
		err = tx.queryRow(ctx, set+`WHERE code = ? AND status <> 'used' RETURNING entitlement`, when, st.Name, ev.Operator, ev.EventID, ev.Code).Scan(&ent)
	} else {
		// Its operator, by the server's staff list now: someone removed
		// redeems nothing online (the parcel has not gone yet).
		var removed int64
		if removed, err = c.staffRemovedAt(ctx, tx, ev.Operator, when); err != nil {
			return central.Result{}, note, when, err
		}
		if note, why, refused := central.RedeemOnlineByRemovedStaff(ev.Operator, removed); refused {
			return central.Result{Outcome: central.OutcomeRejected, Reason: why, Status: cc.status}, note, when, nil
		}
		err = tx.queryRow(ctx, set+`WHERE code = ? AND status = 'unused' AND (expire_at = 0 OR expire_at > ?) RETURNING entitlement`, when, st.Name, ev.Operator, ev.EventID, ev.Code, when).Scan(&ent)
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return central.Result{}, note, when, err
	}
	if err == nil {
		// A label of an entitlement: was another of its labels used?
		used, double, err := c.entitlementUsed(ctx, tx, ev.Code, ent)
		if err != nil {
			return central.Result{}, note, when, err
		}
		if double && !ev.Offline {
			r, err := c.refuseEntitlementUsed(ctx, tx, ev, used)
			return r, note, when, err
		}
		if ev.Offline {
			label := central.Label{Status: cc.status, DisabledReason: cc.reason, ExpireAt: cc.expireAt}
			if cc.status == string(app.StatusExpired) {
				if label.ClosedAt, err = c.closedAt(ctx, tx, ev.Code); err != nil {
					return central.Result{}, note, when, err
				}
			}
			note = central.TakenOffline(note, label, when)
		}
		r := central.Result{Outcome: central.OutcomeRedeemed, UsedAt: when, UsedStation: st.Name, UsedOperator: ev.Operator, Reason: note.Text, Status: string(app.StatusUsed)}
		fields := map[string]any{"at": when, "operator": ev.Operator, "event_id": ev.EventID, "status": app.StatusUsed}
		if note.Text != "" {
			// Every desk keeps the server's note in the label's history.
			fields["flag"] = note.Text
		}
		data, _ := json.Marshal(fields)
		if err := c.addChanges(ctx, tx, change{protocol.KindRedeem, ev.Code, st.Name, string(data)}); err != nil {
			return central.Result{}, note, when, err
		}
		if double {
			r, err = c.entitlementConflict(ctx, tx, st, ev, used, when, note, now)
		}
		return r, note, when, err
	}
	// Refused: the label is as cc says (it is held), and each answer below
	// is the guard's reason. No other state can have refused it: rather
	// than answer what it did not record, the event fails and is sent again.
	if cc.status == string(app.StatusUsed) && ev.Offline && !ev.TakenBack && cc.usedStation == st.Name && cc.usedEvent != ev.EventID {
		if r, ok, err := c.renumbered(ctx, tx, st, ev, cc); err != nil || ok {
			return r, note, when, err
		}
	}
	handedBack := false
	if cc.status == string(app.StatusUsed) && ev.Offline && ev.TakenBack && cc.usedAt > when {
		// Only while its undo is not refused already: an undo that reached
		// the server before the redemption it takes back (sent in an earlier
		// request) and was refused leaves the parcel out, a second use.
		var refused int
		if err := tx.queryRow(ctx, `SELECT count(*) FROM events WHERE kind = 'undo' AND undoes = ? AND station = ? AND outcome = 'rejected'`, ev.EventID, st.Name).Scan(&refused); err != nil {
			return central.Result{}, note, when, err
		}
		handedBack = refused == 0
	}
	switch {
	case handedBack:
		// Handed back (its undo follows in this request) before the record
		// was made: no second use of the label, so no conflict; the label
		// stays with its record,
		// and the undo is accepted as taking back this redemption alone.
		return central.Result{Outcome: central.OutcomeRedeemed, UsedAt: cc.usedAt, UsedStation: cc.usedStation, UsedOperator: cc.usedOperator,
			Reason: "handed back: undone at this desk, and the label was used at " + cc.usedStation + " since", Status: cc.status}, note, when, nil
	case cc.status == string(app.StatusUsed) && ev.Offline:
		r, err := c.conflict(ctx, tx, st, ev, cc, when, note, now)
		return r, note, when, err
	case ev.Offline:
	case cc.status == string(app.StatusUsed):
		return central.Result{Outcome: central.OutcomeAlreadyUsed, UsedAt: cc.usedAt, UsedStation: cc.usedStation, UsedOperator: cc.usedOperator, Status: cc.status}, note, when, nil
	case cc.status == string(app.StatusDisabled):
		return central.Result{Outcome: central.OutcomeDisabled, Reason: cc.reason, Status: cc.status}, note, when, nil
	case cc.status == string(app.StatusExpired) || (cc.status == string(app.StatusUnused) && cc.expireAt != 0 && cc.expireAt <= when):
		return central.Result{Outcome: central.OutcomeExpired, Reason: expiredReason(cc), Status: cc.status}, note, when, nil
	}
	return central.Result{}, note, when, fmt.Errorf("redeem %s: the label is %s under its lock, yet the guarded update changed nothing", ev.Code, cc.status)
}

// renumbered recognises, in a redemption ev of a label whose record is
// another event of the same desk, that same redemption under a new id:
// the same label, operator and desk time. A desk gives an event a new id
// when a restored server answers that its id is another desk's
// (ServerRefusal.IDTaken); restored once more, to a backup that holds the
// event under its first id, the server meets it again under the new one.
// It is one handover, not a conflict: the record follows the desk's new id
// (the event row, the label's used_event, what names it), and the answer
// is the one recorded, as a duplicate (decide records nothing more, so
// the dashboard counts it once). A redemption whose undo comes with it
// (TakenBack) is another one, taken back: it is never renumbered onto the
// record.
func (c *DB) renumbered(ctx context.Context, tx *etx, st central.Station, ev central.Event, cc centralCode) (central.Result, bool, error) {
	prev, err := c.readEvent(ctx, tx, cc.usedEvent)
	if errors.Is(err, sql.ErrNoRows) {
		return central.Result{}, false, nil
	}
	if err != nil {
		return central.Result{}, false, err
	}
	if prev.station != st.Name || prev.ev.Kind != central.KindRedeem || prev.ev.Code != ev.Code || prev.ev.Operator != ev.Operator || prev.ev.At != ev.At {
		return central.Result{}, false, nil
	}
	old := cc.usedEvent
	for _, q := range []string{
		`UPDATE events SET event_id = ? WHERE event_id = ?`,
		`UPDATE codes SET used_event = ? WHERE used_event = ?`,
		`UPDATE events SET undoes = ? WHERE undoes = ?`,
		`UPDATE conflicts SET first_event = ? WHERE first_event = ?`,
	} {
		if _, err := tx.exec(ctx, q, ev.EventID, old); err != nil {
			return central.Result{}, false, err
		}
	}
	var r central.Result
	json.Unmarshal([]byte(prev.detail), &r)
	r.EventID, r.Duplicate, r.Write, r.Status = ev.EventID, true, prev.write, cc.status
	return r, true, nil
}

// deskSites are the values of a new conflict's first_site and second_site,
// given its first and second station: the sites its desks are in now, when
// it happened. A conflict belongs to them for good (ConflictRecord.Sites),
// wherever its desks are moved later.
const deskSites = `COALESCE((SELECT site FROM stations WHERE name = ?), 0), COALESCE((SELECT site FROM stations WHERE name = ?), 0)`

// conflict records a label redeemed offline that was used already.
func (c *DB) conflict(ctx context.Context, tx *etx, st central.Station, ev central.Event, cc centralCode, when int64, note central.Note, now int64) (central.Result, error) {
	k := central.Conflict{Code: ev.Code, FirstEvent: cc.usedEvent, FirstStation: cc.usedStation, FirstOperator: cc.usedOperator, FirstAt: cc.usedAt,
		SecondEvent: ev.EventID, SecondStation: st.Name, SecondOperator: ev.Operator, SecondAt: when, Flag: note.Text}
	// The redemption of record may already be the second use of an earlier
	// conflict (a restore, then the desks' events sent again in another
	// order): its double use is recorded, so this one is recorded against
	// it and does not take over (a second_event names one conflict).
	var alreadySecond int
	if err := tx.queryRow(ctx, `SELECT count(*) FROM conflicts WHERE second_event = ?`, cc.usedEvent).Scan(&alreadySecond); err != nil {
		return central.Result{}, err
	}
	// A new event is the second use of no conflict yet, unless this very
	// decision recorded one for its entitlement: that one stands. When this
	// one takes over, the one it displaces must not be a second use yet: on
	// PostgreSQL two events racing to take over the same record meet on
	// second_event UNIQUE, and the loser is decided again (Apply).
	insert := `INSERT INTO conflicts (code, first_event, first_station, first_operator, first_at, second_event, second_station, second_operator, second_at, detected_at, flag, first_site, second_site)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ` + deskSites + `) ON CONFLICT DO NOTHING`
	if alreadySecond == 0 && central.RecordTakesOver(note, when, cc.usedAt) { // this one came first: it becomes the redemption of record
		insert = strings.TrimSuffix(insert, " ON CONFLICT DO NOTHING")
		k = central.Conflict{Code: ev.Code, FirstEvent: ev.EventID, FirstStation: st.Name, FirstOperator: ev.Operator, FirstAt: when,
			SecondEvent: cc.usedEvent, SecondStation: cc.usedStation, SecondOperator: cc.usedOperator, SecondAt: cc.usedAt}
		if _, err := tx.exec(ctx, `UPDATE codes SET used_at = ?, used_station = ?, used_operator = ?, used_event = ? WHERE code = ?`,
			when, st.Name, ev.Operator, ev.EventID, ev.Code); err != nil {
			return central.Result{}, err
		}
	}
	if _, err := tx.exec(ctx, insert, k.Code, k.FirstEvent, k.FirstStation, k.FirstOperator, k.FirstAt,
		k.SecondEvent, k.SecondStation, k.SecondOperator, k.SecondAt, now, k.Flag, k.FirstStation, k.SecondStation); err != nil {
		return central.Result{}, err
	}
	data, _ := json.Marshal(k)
	if err := c.addChanges(ctx, tx, change{protocol.KindConflict, ev.Code, st.Name, string(data)}); err != nil {
		return central.Result{}, err
	}
	return central.Result{Outcome: central.OutcomeConflict, UsedAt: k.FirstAt, UsedStation: k.FirstStation, UsedOperator: k.FirstOperator,
		Reason: "redeemed at two desks while they could not both reach the server", Status: string(app.StatusUsed)}, nil
}

// setDisabled decides a disable or an enable: the guarded UPDATE of the
// label, refused (flagged) when its supervisor had been removed from the
// staff list by the event's time (central.RefusedByRemovedStaff).
func (c *DB) setDisabled(ctx context.Context, tx *etx, st central.Station, ev central.Event, now int64) (central.Result, central.Note, error) {
	q := `UPDATE codes SET status = 'disabled', disabled_reason = ? WHERE code = ? AND status = 'unused'`
	reason := ev.Reason
	if ev.Kind == central.KindEnable {
		q, reason = `UPDATE codes SET status = 'unused', disabled_reason = ? WHERE code = ? AND status = 'disabled'`, ""
	}
	// The label under its lock (labellock.go): a refusal below names the
	// status that refused it, not one an undo of it is leaving.
	cc, err := c.lockLabel(ctx, tx, ev.Code)
	if errors.Is(err, sql.ErrNoRows) {
		return central.Result{Outcome: central.OutcomeUnknown, Reason: "the server has no such code: upload the batch first"}, central.Note{}, nil
	}
	if err != nil {
		return central.Result{}, central.Note{}, err
	}
	removed, err := c.removedSupervisor(ctx, tx, ev, now)
	if err != nil {
		return central.Result{}, central.Note{}, err
	}
	if note, why, refused := central.RefusedByRemovedStaff(ev.Kind, ev.Operator, removed); refused {
		// The label stays as it is; the desk's copy follows.
		return central.Result{Outcome: central.OutcomeRejected, Reason: why, Status: cc.status}, note, nil
	}
	if ev.Kind == central.KindEnable {
		// A replaced label valid again would be a second valid label.
		var bad *central.BadRequest
		if err := c.checkOneValid(ctx, tx, ev.Code); errors.As(err, &bad) {
			// The label stays as it is: disabled, or used.
			return central.Result{Outcome: central.OutcomeRejected, Reason: bad.Reason, Status: cc.status}, central.Note{}, nil
		} else if err != nil {
			return central.Result{}, central.Note{}, err
		}
	}
	res, err := tx.exec(ctx, q, reason, ev.Code)
	if err != nil {
		return central.Result{}, central.Note{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return central.Result{Outcome: central.OutcomeRejected, Reason: "the code is " + cc.status, Status: cc.status}, central.Note{}, nil
	}
	status := app.StatusDisabled
	if ev.Kind == central.KindEnable {
		status = app.StatusUnused
	}
	data, _ := json.Marshal(map[string]any{"reason": reason, "operator": ev.Operator, "at": ev.At, "status": status})
	return central.Result{Outcome: ev.Kind + "d", Status: string(status)}, central.Note{}, c.addChanges(ctx, tx, change{ev.Kind, ev.Code, st.Name, string(data)})
}

// Changes returns the feed after the cursor: on SQLite the position is
// seq; on PostgreSQL the position placeChanges gave.
func (c *DB) Changes(ctx context.Context, after int64, limit int) ([]central.Change, error) {
	return c.changes(ctx, allSites, after, limit)
}

// allSites asks changes for the whole feed (the feed from memory, tests).
const allSites = -1

// changes reads the feed after the cursor: the whole feed (allSites), or a
// site's (its labels' changes and the deployment-wide ones, site 0).
func (c *DB) changes(ctx context.Context, site, after int64, limit int) ([]central.Change, error) {
	if c.e.postgres {
		if err := c.placeChanges(ctx); err != nil {
			return nil, err
		}
	}
	return c.placedChanges(ctx, site, after, limit)
}

// placedChanges is changes without placing: the feed as placed so far,
// with the floor's and the head's refusals.
func (c *DB) placedChanges(ctx context.Context, site, after int64, limit int) ([]central.Change, error) {
	out, floor, head, err := c.readFeed(ctx, site, after, limit, false)
	if err != nil {
		return nil, err
	}
	if after < floor {
		return nil, central.ErrFeedCompacted
	}
	if len(out) == 0 && after > 0 && after > head {
		return nil, central.ErrFeedReset
	}
	return out, nil
}

// readFeed reads the changes placed after the cursor, then the floor, then
// (when the page is empty and after > 0, or always with wantHead) the head;
// head is -1 when not read. It neither places nor refuses: a read replica
// reads its copy with it and judges a cursor beyond its head itself.
func (c *DB) readFeed(ctx context.Context, site, after int64, limit int, wantHead bool) (out []central.Change, floor, head int64, err error) {
	col := c.feedColumn()
	cols := col + `, kind, code, station, data, tag, site`
	query := `SELECT ` + cols + ` FROM changes WHERE ` + col + ` > ? ORDER BY ` + col + ` LIMIT ?`
	args := []any{after, limit}
	if site != allSites {
		query = `SELECT ` + cols + ` FROM (
			SELECT ` + cols + ` FROM (SELECT ` + cols + ` FROM changes WHERE site = ? AND ` + col + ` > ? ORDER BY ` + col + ` LIMIT ?) AS own
			UNION ALL
			SELECT ` + cols + ` FROM (SELECT ` + cols + ` FROM changes WHERE site = 0 AND ` + col + ` > ? ORDER BY ` + col + ` LIMIT ?) AS everywhere
		) AS feed ORDER BY ` + col + ` LIMIT ?`
		args = []any{site, after, limit, after, limit, limit}
	}
	rows, err := c.e.query(ctx, query, args...)
	if err != nil {
		return nil, 0, 0, err
	}
	defer rows.Close()
	out = []central.Change{}
	for rows.Next() {
		var ch central.Change
		if err := rows.Scan(&ch.Seq, &ch.Kind, &ch.Code, &ch.Station, &ch.Data, &ch.Tag, &ch.Site); err != nil {
			return nil, 0, 0, err
		}
		out = append(out, ch)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, 0, err
	}
	// The floor after the rows: compaction raises it before it deletes, so
	// a desk below it is told to start over, never handed a feed with a hole.
	if floor, err = c.feedFloor(ctx); err != nil {
		return nil, 0, 0, err
	}
	head = -1
	if wantHead || (len(out) == 0 && after > 0) {
		if head, err = c.feedHead(ctx, floor); err != nil {
			return nil, 0, 0, err
		}
	}
	return out, floor, head, nil
}

// changeTag is a new feed change's tag: random, so a change written again
// at a position after a restore never has the tag of the one a desk read
// there before.
func changeTag() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// FeedTag returns the tag of the change at position pos; held is false
// when the feed has no change there (compacted, or not written yet).
func (c *DB) FeedTag(ctx context.Context, pos int64) (tag string, held bool, err error) {
	if c.e.postgres {
		if err := c.placeChanges(ctx); err != nil {
			return "", false, err
		}
	}
	err = c.e.queryRow(ctx, `SELECT tag FROM changes WHERE `+c.feedColumn()+` = ?`, pos).Scan(&tag)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return tag, err == nil, err
}

// placeChanges gives feed positions (PostgreSQL) to the changes committed
// since the last placing, above every position given before (also those
// compaction dropped), in seq order
// (for one label, seq order is the order its changes committed in: a
// writer inserts its change after the row lock it waited for was
// released). A change still uncommitted is invisible here and is placed by
// a later placing, higher up: no cursor can pass it. Placers take turns (a
// lock here, in the feed reader, never in a writer); one that finds
// another process's at work waits for it and places after it: that
// placing may have begun before a change this reader must see committed.
func (c *DB) placeChanges(ctx context.Context) error {
	if c.replica {
		// A read replica takes no writes: its positions are the primary's,
		// placed there (Replica places before it reads).
		return nil
	}
	// Readers arriving together share one placing: one that began after
	// this reader arrived, and succeeded, has placed everything this
	// reader could see.
	arrived := time.Now()
	c.placeMu.Lock()
	defer c.placeMu.Unlock()
	if c.placeStarted.After(arrived) {
		return nil
	}
	started := time.Now()
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	// Not for long: a placer whose process froze or was cut off keeps the
	// lock until PostgreSQL notices; after a second this reader leaves the
	// placing to it, and reads what is placed.
	if _, err := tx.exec(ctx, `SET LOCAL lock_timeout = '1s'`); err != nil {
		return err
	}
	if _, err := tx.exec(ctx, `SELECT pg_advisory_xact_lock(8427)`); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "55P03" { // lock_not_available
			return nil
		}
		return err
	}
	if _, err := tx.exec(ctx, `WITH ready AS (
			SELECT seq, row_number() OVER (ORDER BY seq) AS n FROM changes WHERE pos IS NULL),
		base AS (SELECT GREATEST(COALESCE(max(pos), 0),
			COALESCE((SELECT CAST(value AS BIGINT) FROM deployment WHERE key = 'feed_floor'), 0)) AS b FROM changes)
		UPDATE changes SET pos = base.b + ready.n FROM ready, base WHERE changes.seq = ready.seq`); err != nil {
		return err
	}
	if err := tx.commit(); err != nil {
		return err
	}
	c.placeStarted = started
	return nil
}

func (c *DB) Conflicts(ctx context.Context, from, to int64) ([]central.Conflict, error) {
	rows, err := c.e.query(ctx, `SELECT code, first_event, first_station, first_operator, first_at, second_event, second_station, second_operator, second_at, flag, second_code
		FROM conflicts WHERE first_at >= ? AND first_at < ? ORDER BY first_at, id`, from, to)
	if err != nil {
		return nil, err
	}
	return scanConflicts(rows)
}

// scanConflicts reads conflict rows selected in the order of their fields.
func scanConflicts(rows *sql.Rows) ([]central.Conflict, error) {
	defer rows.Close()
	out := []central.Conflict{}
	for rows.Next() {
		var k central.Conflict
		if err := rows.Scan(&k.Code, &k.FirstEvent, &k.FirstStation, &k.FirstOperator, &k.FirstAt, &k.SecondEvent, &k.SecondStation, &k.SecondOperator, &k.SecondAt, &k.Flag, &k.SecondCode); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// FlaggedEvent is an event the server did not take at its word.
type FlaggedEvent struct {
	EventID    string `json:"event_id"`
	Station    string `json:"station"`
	Kind       string `json:"kind"`
	Code       string `json:"code"`
	Flag       string `json:"flag"`
	At         int64  `json:"at"`          // what the desk said
	ReceivedAt int64  `json:"received_at"` // the server's clock, the time it was decided at
	Site       string `json:"site"`        // the desk's site now ("" for a desk no longer on record)
}

// FlaggedEvents lists the events received in [from, to) with a flag, for
// the report.
func (c *DB) FlaggedEvents(ctx context.Context, from, to int64) ([]FlaggedEvent, error) {
	rows, err := c.e.query(ctx, `SELECT e.event_id, e.station, e.kind, e.code, e.flag, e.at, e.received_at, COALESCE(s.name, '')
		FROM events e LEFT JOIN stations t ON t.name = e.station LEFT JOIN sites s ON s.id = t.site
		WHERE e.flag <> '' AND e.received_at >= ? AND e.received_at < ? ORDER BY e.received_at, e.id`, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FlaggedEvent
	for rows.Next() {
		var f FlaggedEvent
		if err := rows.Scan(&f.EventID, &f.Station, &f.Kind, &f.Code, &f.Flag, &f.At, &f.ReceivedAt, &f.Site); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// QueryRowForTests runs a read-only query written with ? placeholders on
// either engine (this module's tests).
func (c *DB) QueryRowForTests(query string, args ...any) *sql.Row {
	return c.e.queryRow(context.Background(), query, args...).r
}

// QueryForTests runs a read-only query written with ? placeholders on
// either engine (this module's tests and the fault harness).
func (c *DB) QueryForTests(query string, args ...any) (*sql.Rows, error) {
	return c.e.query(context.Background(), query, args...)
}

// OpenRefusingWritesForTests opens the server database at path (made by
// Open) so that it answers every read and refuses every write, as a
// read-only file or a PostgreSQL standby does (this module's tests):
// SQLite with query_only on every connection; PostgreSQL with
// default_transaction_read_only set on the database, for every session
// opened after (the handles open already still write). No migration runs.
func OpenRefusingWritesForTests(ctx context.Context, path string) (*DB, error) {
	if !isPostgres(path) {
		sqldb, err := sql.Open("sqlite", sqlstore.DSN(path, sqlstore.BusyTimeout)+"&_pragma=query_only(1)")
		if err != nil {
			return nil, err
		}
		return &DB{e: &engine{db: sqldb}, path: path}, nil
	}
	admin, err := sql.Open("pgx", path)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	var name string
	if err := admin.QueryRowContext(ctx, `SELECT current_database()`).Scan(&name); err != nil {
		return nil, err
	}
	if _, err := admin.ExecContext(ctx, `ALTER DATABASE `+pgx.Identifier{name}.Sanitize()+` SET default_transaction_read_only = on`); err != nil {
		return nil, err
	}
	db, err := sql.Open("pgx", path)
	if err != nil {
		return nil, err
	}
	return &DB{e: &engine{db: db, postgres: true}, path: path}, nil
}
