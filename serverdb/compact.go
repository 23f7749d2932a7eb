package serverdb

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"qrdesk/central"
	"qrdesk/protocol"
)

// The change feed is compacted below what every active desk has applied,
// so a year of operation keeps it small; the events (the audit trail) and
// the codes stay. A desk whose cursor is below the compacted floor (a new
// desk, or one silent longer than the compactor waits) starts over from a
// snapshot of the codes' state.

// compactPiece is how many changes one compaction transaction drops.
const compactPiece = 5000

// feedColumn is the column of the feed position: seq on SQLite (writers
// take turns, so seq order is commit order), pos on PostgreSQL.
func (c *DB) feedColumn() string {
	if c.e.postgres {
		return "pos"
	}
	return "seq"
}

// feedFloor is the position up to which the feed was compacted.
func (c *DB) feedFloor(ctx context.Context) (int64, error) {
	var v string
	err := c.e.queryRow(ctx, `SELECT value FROM deployment WHERE key = 'feed_floor'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(v, 10, 64)
}

// feedHead is the highest feed position ever given, compacted ones too
// (floor is feedFloor, which the callers have read already).
func (c *DB) feedHead(ctx context.Context, floor int64) (int64, error) {
	query := `SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'changes'), 0)`
	if c.e.postgres {
		query = `SELECT ` + pgHeadExpr
	}
	var head int64
	err := c.e.queryRow(ctx, query).Scan(&head)
	return max(head, floor), err
}

// FeedBounds does not place (PostgreSQL): a change committed but not yet
// placed gets a position above head at the next placing, which the next
// Changes makes, so a reader that starts at head misses nothing — and the
// feed from memory, which asks for the bounds after each read of Changes,
// places once per refresh instead of twice.
func (c *DB) FeedBounds(ctx context.Context) (floor, head int64, err error) {
	if floor, err = c.feedFloor(ctx); err != nil {
		return 0, 0, err
	}
	head, err = c.feedHead(ctx, floor)
	return floor, head, err
}

func (c *DB) AckFeed(ctx context.Context, acks map[int64]central.FeedAck) error {
	if len(acks) == 0 {
		return nil
	}
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	for id, a := range acks {
		if _, err := tx.exec(ctx, `UPDATE stations SET feed_ack = ?, feed_acked_at = ? WHERE id = ? AND feed_ack <= ?`, a.Position, a.At, id, a.Position); err != nil {
			return err
		}
	}
	return tx.commit()
}

func (c *DB) Compact(ctx context.Context, staleBefore int64) (int64, error) {
	var floor int64
	if err := c.e.queryRow(ctx, `SELECT COALESCE(min(feed_ack), 0) FROM stations
		WHERE revoked_at = 0 AND feed_ack > 0 AND feed_acked_at >= ?`, staleBefore).Scan(&floor); err != nil {
		return 0, err
	}
	// Nor below what a webhook endpoint has not delivered: the feed is
	// its outbox (webhooks.go). A paused one holds it too; removing the
	// endpoint lets it go.
	var endpoints, delivered int64
	if err := c.e.queryRow(ctx, `SELECT count(*), COALESCE(min(delivered), 0) FROM webhooks`).Scan(&endpoints, &delivered); err != nil {
		return 0, err
	}
	if endpoints > 0 {
		floor = min(floor, delivered)
	}
	old, err := c.feedFloor(ctx)
	if err != nil {
		return 0, err
	}
	head, err := c.feedHead(ctx, old)
	if err != nil {
		return 0, err
	}
	if floor = min(floor, head); floor <= old { // an ack is never above what was given; be sure
		return 0, nil
	}
	// The floor first: a feed reader that finds it raised knows the rows
	// below it may be gone, even before they are.
	if _, err := c.e.exec(ctx, `INSERT INTO deployment (key, value) VALUES ('feed_floor', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.FormatInt(floor, 10)); err != nil {
		return 0, err
	}
	col := c.feedColumn()
	var dropped int64
	for {
		tx, err := c.e.begin(ctx)
		if err != nil {
			return dropped, err
		}
		res, err := tx.exec(ctx, `DELETE FROM changes WHERE seq IN (SELECT seq FROM changes WHERE `+col+` <= ? ORDER BY `+col+` LIMIT ?)`, floor, compactPiece)
		if err == nil {
			err = tx.commit()
		}
		tx.done()
		if err != nil {
			return dropped, err
		}
		n, _ := res.RowsAffected()
		dropped += n
		if n < compactPiece {
			return dropped, nil
		}
	}
}

// Snapshot reads the snapshot here; position (a later page's first
// page's position) needs no check: this database gave it, and its state
// is at least that new (Replica checks its copy). station is the desk's
// (its first page brings the other sites' labels it holds).
func (c *DB) Snapshot(ctx context.Context, site int64, station string, afterID, position int64, limit int) (protocol.Snapshot, error) {
	// The position first: the state read after it is at least as new.
	if c.e.postgres {
		if err := c.placeChanges(ctx); err != nil {
			return protocol.Snapshot{}, err
		}
	}
	var snap protocol.Snapshot
	floor, err := c.feedFloor(ctx)
	if err != nil {
		return snap, err
	}
	if snap.Position, err = c.feedHead(ctx, floor); err != nil {
		return snap, err
	}
	if afterID == 0 { // the desk keeps the first page's position, and the staff list
		if snap.Check, _, err = c.FeedTag(ctx, snap.Position); err != nil {
			return snap, err
		}
		if snap.Staff, err = c.Staff(ctx, true); err != nil {
			return snap, err
		}
	}
	query, args := `SELECT id, code, issued_by, status, expire_at, created_at, used_at, used_station, used_operator, used_event, disabled_reason, entitlement, ref, order_customer
		FROM codes WHERE id > ? ORDER BY id LIMIT ?`, []any{afterID, limit}
	if site != 0 { // one site's labels, through the index on (site, id)
		query, args = `SELECT id, code, issued_by, status, expire_at, created_at, used_at, used_station, used_operator, used_event, disabled_reason, entitlement, ref, order_customer
		FROM codes WHERE site = ? AND id > ? ORDER BY id LIMIT ?`, []any{site, afterID, limit}
	}
	rows, err := c.e.query(ctx, query, args...)
	if err != nil {
		return snap, err
	}
	defer rows.Close()
	snap.Codes = []protocol.CodeState{}
	var last int64
	for rows.Next() {
		var s protocol.CodeState
		var customer sql.NullString
		if err := rows.Scan(&last, &s.Code, &s.IssuedBy, &s.Status, &s.ExpireAt, &s.CreatedAt, &s.UsedAt, &s.UsedStation, &s.UsedOperator, &s.UsedEvent, &s.DisabledReason, &s.Entitlement, &s.Ref, &customer); err != nil {
			return snap, err
		}
		s.Order = orderMark(customer)
		snap.Codes = append(snap.Codes, s)
	}
	if err := rows.Err(); err != nil {
		return snap, err
	}
	rows.Close()
	if len(snap.Codes) == limit {
		snap.NextID = last
	}
	if snap.Conflicts, err = c.conflictsOf(ctx, site, afterID, last); err != nil || site == 0 || afterID != 0 {
		return snap, err
	}
	// The first page also brings the other sites' labels this desk holds:
	// its station has an event on it or on another label of its
	// entitlement, or issued one of them (a desk moved here keeps the
	// labels it issued in its old site). The feed sends their changes to
	// the station's site (holderSites) for as long as the station is in
	// it; a label another desk of the site holds is not brought: its
	// changes stop coming here when that desk moves away, and a copy left
	// here would stay as it was. With their conflicts below: a desk that
	// starts over (moved here, or silent past compaction) gets the changes
	// it missed, and keeps what it holds; a copy of another site's label
	// not brought here is one it holds no more (the desk drops it: app's
	// dropStaleCopies). They come without their order mark, as the feed
	// sends their changes (a label's upload goes to its own site): the
	// desk holds such a label alone, not its order's other parcels, and
	// would name it "parcel 1 of 1".
	rows, err = c.e.query(ctx, `SELECT code, issued_by, status, expire_at, created_at, used_at, used_station, used_operator, used_event, disabled_reason, entitlement, ref, NULL
		FROM codes WHERE site <> ? AND code IN (`+stationHeldLabels+`) ORDER BY id`, site, station)
	if err != nil {
		return snap, err
	}
	defer rows.Close()
	for rows.Next() {
		var s protocol.CodeState
		var customer sql.NullString
		if err := rows.Scan(&s.Code, &s.IssuedBy, &s.Status, &s.ExpireAt, &s.CreatedAt, &s.UsedAt, &s.UsedStation, &s.UsedOperator, &s.UsedEvent, &s.DisabledReason, &s.Entitlement, &s.Ref, &customer); err != nil {
			return snap, err
		}
		s.Order = orderMark(customer)
		snap.Codes = append(snap.Codes, s)
	}
	if err := rows.Err(); err != nil {
		return snap, err
	}
	rows.Close()
	// The first page of a site's snapshot also brings the conflicts over
	// other sites' labels that belong to the site: those whose desks were
	// in it when they were recorded (conflicts.first_site, second_site,
	// wherever the desks are now: ConflictRecord.Sites); those one of the
	// site's desks took part in, so a desk moved here keeps listing its
	// own; and those of the labels it brought above (the feed sends them
	// to holders too).
	rows, err = c.e.query(ctx, `SELECT k.code, k.first_event, k.first_station, k.first_operator, k.first_at, k.second_event, k.second_station, k.second_operator, k.second_at, k.flag, k.second_code
		FROM conflicts k JOIN codes c ON c.code = k.code
		WHERE c.site <> ? AND (k.first_site = ? OR k.second_site = ?
			OR k.first_station IN (SELECT name FROM stations WHERE site = ?) OR k.second_station IN (SELECT name FROM stations WHERE site = ?)
			OR k.code IN (`+siteHeldLabels+`)) ORDER BY k.id`, site, site, site, site, site, site)
	if err != nil {
		return snap, err
	}
	theirs, err := scanConflicts(rows)
	snap.Conflicts = append(snap.Conflicts, theirs...)
	return snap, err
}

// siteHeldLabels selects (one column, code) the labels the desks of a site
// hold a copy of, whatever site they are: those a station of the site has
// an event on or issued, and the other labels of their entitlements. It is
// holderSites turned round (a label's change goes to a site exactly when a
// desk of the site holds the label); a snapshot brings the labels of one
// desk (stationHeldLabels), the conflicts of the site's. The issuer is found through the
// index on the station letter (a station's labels carry its letter). Its
// one argument is the site.
var siteHeldLabels = heldLabels("site")

// stationHeldLabels is siteHeldLabels for one station (its one argument,
// the station's name): the labels its desk holds a copy of, whatever site
// they are, wherever the other desks of its site go.
var stationHeldLabels = heldLabels("name")

// heldLabels is the query of siteHeldLabels and stationHeldLabels, of
// the stations whose column by (site, name) is the argument.
func heldLabels(by string) string {
	return strings.Replace(`WITH mine AS (SELECT name, letter FROM stations WHERE site = ?),
		held AS (SELECT e.code FROM events e WHERE e.station IN (SELECT name FROM mine)
			UNION SELECT m.code FROM codes m WHERE m.station_id IN (SELECT letter FROM mine WHERE letter <> '') AND m.serial IS NOT NULL
				AND m.issued_by IN (SELECT name FROM mine))
		SELECT code FROM held
		UNION SELECT m.code FROM codes m WHERE m.entitlement <> '' AND m.entitlement IN (
			SELECT l.entitlement FROM codes l WHERE l.entitlement <> '' AND l.code IN (SELECT code FROM held))`, "WHERE site = ?", "WHERE "+by+" = ?", 1)
}

// conflictsOf lists the conflicts of the codes with ids in (afterID, last]
// (of the site's codes; site 0: every code).
func (c *DB) conflictsOf(ctx context.Context, site, afterID, last int64) ([]protocol.Conflict, error) {
	rows, err := c.e.query(ctx, `SELECT code, first_event, first_station, first_operator, first_at, second_event, second_station, second_operator, second_at, flag, second_code
		FROM conflicts WHERE code IN (SELECT code FROM codes WHERE id > ? AND id <= ? AND (? = 0 OR site = ?)) ORDER BY id`, afterID, last, site, site)
	if err != nil {
		return nil, err
	}
	return scanConflicts(rows)
}
