package serverdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"qrdesk/central"
	"qrdesk/protocol"
)

// The change feed: every change of a label (and of the staff list) a desk
// follows, written in the transaction of the decision that made it
// (addChanges) and read after a desk's position (Changes). On PostgreSQL a
// change's position is given after its commit (placeChanges), so no reader
// passes a change still uncommitted.

// change is one entry for the feed.
type change struct {
	kind                protocol.Kind
	code, station, data string
}

func (c *DB) addChanges(ctx context.Context, tx *etx, changes ...change) error {
	if len(changes) == 0 {
		return nil
	}
	tx.fed = true
	// No lock here: on PostgreSQL the feed position is given after commit
	// (placeChanges); on SQLite writers are one at a time, so seq order is
	// commit order.
	var q strings.Builder
	// A change goes to its label's site; one without a label (the staff
	// list) to every site (0).
	q.WriteString(`INSERT INTO changes (kind, code, station, data, tag, decided_at, site) VALUES `)
	args := make([]any, 0, 7*len(changes))
	for i, ch := range changes {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?, ?, ?, COALESCE((SELECT site FROM codes WHERE code = ?), 0))")
		args = append(args, ch.kind, ch.code, ch.station, ch.data, changeTag(), tx.now, ch.code)
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
// site holding a copy (holderSites), the site of the station that made it
// (its event, recorded after its change, makes it a holder: a desk that
// reads an older change of the label after its own answer must read this
// one after it too) and, for a conflict, the sites of its two desks (the
// second use may be of another label of the entitlement), at positions of
// their own. A copy is marked holder_copy: the webhooks deliver the fact
// once, from the label's own change.
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
			` + holderSites + ` UNION SELECT t.site FROM stations t WHERE t.name IN (?, ?, ?)) h
			WHERE h.site <> COALESCE((SELECT site FROM codes WHERE code = ?), 0)`)
		var k protocol.Conflict
		if ch.kind == protocol.KindConflict {
			json.Unmarshal([]byte(ch.data), &k)
		}
		args = append(args, ch.kind, ch.code, ch.station, ch.data, changeTag(), ch.code, ch.code, ch.code, ch.code, ch.station, k.FirstStation, k.SecondStation, ch.code)
	}
	if q.Len() == 0 {
		return nil
	}
	_, err := tx.exec(ctx, `INSERT INTO changes (kind, code, station, data, tag, site, holder_copy, decided_at) SELECT x.*, 1, CAST(? AS BIGINT) FROM (`+q.String()+`) x`, append([]any{tx.now}, args...)...)
	return err
}

// Changes returns the feed after the cursor: on SQLite the position is
// seq; on PostgreSQL the position placeChanges gave.
func (c *DB) Changes(ctx context.Context, after int64, limit int) ([]protocol.Change, error) {
	return c.changes(ctx, allSites, after, limit)
}

// allSites asks changes for the whole feed (the feed from memory, tests).
const allSites = -1

// changes reads the feed after the cursor: the whole feed (allSites), or a
// site's (its labels' changes and the deployment-wide ones, site 0).
func (c *DB) changes(ctx context.Context, site, after int64, limit int) ([]protocol.Change, error) {
	if c.e.postgres {
		if err := c.placeChanges(ctx); err != nil {
			return nil, err
		}
	}
	return c.placedChanges(ctx, site, after, limit)
}

// placedChanges is changes without placing: the feed as placed so far,
// with the floor's and the head's refusals.
func (c *DB) placedChanges(ctx context.Context, site, after int64, limit int) ([]protocol.Change, error) {
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
func (c *DB) readFeed(ctx context.Context, site, after int64, limit int, wantHead bool) (out []protocol.Change, floor, head int64, err error) {
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
	out = []protocol.Change{}
	for rows.Next() {
		var ch protocol.Change
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
// compaction dropped, and those of a database a restore replaced), in seq order
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
		base AS (SELECT `+pgHeadExpr+` AS b)
		UPDATE changes SET pos = base.b + ready.n FROM ready, base WHERE changes.seq = ready.seq`); err != nil {
		return err
	}
	if err := tx.commit(); err != nil {
		return err
	}
	c.placeStarted = started
	return nil
}
