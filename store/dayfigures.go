package store

import (
	"context"
	"database/sql"
	"sort"

	"qrdesk/app"
)

// A desk's own day figures, counted as the server's dashboard counts its
// row (store/dashboard.go, DayActivity): a redemption is this desk's when
// it was made here, it counts while it stands (an undo takes it out), and
// a redemption the server found used elsewhere counts as a conflict, not
// a redemption.

// ownRedemption is the condition on a redemptions row r that it counts
// as one of this desk's redemptions: one it made (r.own: its offline
// decision, or the online answer to its own scan), whatever name the row
// carries (the server's name for the desk, or the desk's before a rename),
// not answered as a double use, that stands here or that the server
// answered "redeemed" and no undo took back. The second: of two handovers
// of one label by this desk (one undone here, the undo refused), the
// server counts the one it decided first as redeemed even when the other,
// earlier by the desk's clock, is the redemption of record standing here.
const ownRedemption = `r.own = 1 AND NOT EXISTS (SELECT 1 FROM outbox o
		WHERE o.event_id = r.trace_id AND o.kind = 'redeem' AND ` + ownDoubleUse + `)
	AND (r.undone_at = 0 OR (EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = r.trace_id AND o.kind = 'redeem' AND ` + outboxRedeemed + `)
		AND NOT EXISTS (SELECT 1 FROM undos u WHERE u.undoes = r.trace_id AND u.refused = '')))`

// ownEvent is the value of redemptions.own for a redemption the feed
// brings whose event id is the placeholder: 1 when this desk sent it (its
// outbox holds the event) or when the server names this desk's station
// (a desk restored from a backup gets back, through the feed, what it
// redeemed after the backup). The placeholders: the event id, then the
// change's station twice.
const ownEvent = `(EXISTS (SELECT 1 FROM outbox WHERE outbox.event_id = ? AND outbox.kind = 'redeem')
	OR (? <> '' AND ? = COALESCE((SELECT value FROM sync_state WHERE key = 'server_station'), '')))`

// outboxConflict is the condition on an outbox row o that the server
// answered it as a double use (its stored answer's outcome).
const outboxConflict = `(CASE WHEN json_valid(o.result) THEN json_extract(o.result, '$.outcome') END) = 'conflict'`

// ownDoubleUse is the condition on this desk's outbox row o (a redeem)
// that it is the double use of a conflict, not the redemption of record:
// the conflict names it second, or the server answered it as a double
// use and no conflict names it first. Named second wins over named first:
// of a chain of takeovers (C's, earliest, took the record over from B's,
// which had taken it over from A's) the middle one is a double use. The
// redemption of record is the one
// the server's conflict names first (central.RecordTakesOver: an earlier
// use by a trusted clock takes the record over from the one uploaded
// first), so a desk counts what the server's dashboard counts, whichever
// desk synced first.
const ownDoubleUse = `(EXISTS (SELECT 1 FROM conflicts k WHERE k.second_event = o.event_id)
	OR (` + outboxConflict + ` AND NOT EXISTS (SELECT 1 FROM conflicts k WHERE k.first_event = o.event_id)))`

// outboxRedeemed is the condition on an outbox row o that the server
// answered it as a redemption.
const outboxRedeemed = `(CASE WHEN json_valid(o.result) THEN json_extract(o.result, '$.outcome') END) = 'redeemed'`

// AllDesks counts every desk's figures of [from, to) as this desk knows
// them from its last sync (see app.AllDesksStore); nil before the first.
func (d *DB) AllDesks(ctx context.Context, from, to int64) (*app.AllDesks, error) {
	var a app.AllDesks
	err := d.db.QueryRowContext(ctx, `SELECT COALESCE((SELECT CAST(value AS INTEGER) FROM sync_state WHERE key = 'last_ok'), 0)`).Scan(&a.SyncedAt)
	if err != nil || a.SyncedAt == 0 {
		return nil, d.wrap(err, "cannot count the figures of all desks")
	}
	if err := d.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM undos WHERE refused = '' AND at >= ?1 AND at < ?2),
		(SELECT count(*) FROM conflicts WHERE (first_at >= ?1 AND first_at < ?2) OR (second_at >= ?1 AND second_at < ?2))`, from, to).
		Scan(&a.Undone, &a.Conflicts); err != nil {
		return nil, d.wrap(err, "cannot count the figures of all desks")
	}
	// This desk's own batches carry its station name, its online
	// redemptions the server's name for it: both are counted under the
	// server's name (the dashboard's, and what the other desks know it
	// by), so that it is listed once.
	var own string
	if err := d.db.QueryRowContext(ctx, `SELECT COALESCE((SELECT value FROM sync_state WHERE key = 'server_station'), '')`).Scan(&own); err != nil {
		return nil, d.wrap(err, "cannot count the figures of all desks")
	}
	desks := map[string]*app.DeskCounts{}
	desk := func(name string) *app.DeskCounts {
		if desks[name] == nil {
			desks[name] = &app.DeskCounts{Station: name}
		}
		return desks[name]
	}
	// Codes by issue time, with the station of their batch (another
	// desk's codes sit in a placeholder batch named after that desk),
	// batch by batch (CROSS JOIN keeps that order): each batch's codes of
	// the window are one range of the index by batch and issue time.
	if err := eachRow(ctx, d.db, func(rows *sql.Rows) error {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return err
		}
		desk(name).Issued += n
		a.Issued += n
		return nil
	}, `SELECT CASE WHEN b.label_date <> 'remote' AND ?3 <> '' THEN ?3 ELSE b.station END, count(*) FROM batches b CROSS JOIN codes c ON c.batch_id = b.id
		WHERE c.created_at >= ?1 AND c.created_at < ?2 GROUP BY 1`, from, to, own); err != nil {
		return nil, d.wrap(err, "cannot count the figures of all desks")
	}
	// Standing redemptions: one per label (a double use counts once), the
	// desk's of the redemption of record (allDesksRecord).
	if err := eachRow(ctx, d.db, func(rows *sql.Rows) error {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return err
		}
		desk(name).Redeemed += n
		a.Redeemed += n
		return nil
	}, allDesksRecord, from, to, own); err != nil {
		return nil, d.wrap(err, "cannot count the figures of all desks")
	}
	a.Desks = []app.DeskCounts{}
	for _, dc := range desks {
		a.Desks = append(a.Desks, *dc)
	}
	sort.Slice(a.Desks, func(i, j int) bool { return a.Desks[i].Station < a.Desks[j].Station })
	return &a, nil
}

// allDesksRecord counts the labels redeemed in [?1, ?2) by the desk of
// their redemption of record, the one rule the dashboard counts by
// (serverdb/dashboard.go recordOutcome): the use a conflict names first
// and no conflict names second. A desk holds one standing redemption per
// label, not always the record's: its own handover a conflict names
// second stays standing here (the parcel went from this desk), and the
// takeover reaches it as the conflict alone. Such a redemption is the
// double use, so its label counts for the desk the conflict names first,
// on that use's day: once per label however many conflicts name it.
// A redemption of this desk's own (r.own) counts under ?3, the server's
// name for this desk, when it is known.
const allDesksRecord = `SELECT station, count(*) FROM (
	SELECT CASE WHEN r.own = 1 AND ?3 <> '' THEN ?3 ELSE r.station END AS station FROM redemptions r
	WHERE r.undone_at = 0 AND r.redeemed_at >= ?1 AND r.redeemed_at < ?2
		AND NOT EXISTS (SELECT 1 FROM conflicts k WHERE k.second_event = r.trace_id)
	UNION ALL
	SELECT min(k.first_station) FROM conflicts k
	WHERE k.first_at >= ?1 AND k.first_at < ?2
		AND NOT EXISTS (SELECT 1 FROM conflicts k2 WHERE k2.second_event = k.first_event)
		AND EXISTS (SELECT 1 FROM codes c JOIN redemptions r ON r.code_id = c.id AND r.undone_at = 0
			WHERE c.random = substr(k.code, -22, 12) AND c.code = k.code
				AND EXISTS (SELECT 1 FROM conflicts k3 WHERE k3.second_event = r.trace_id))
	GROUP BY k.code
) GROUP BY station`

// completeForeignCode gives a code this desk first met through a scan
// (insertForeignCode: no batch of its desk, no issue time) the batch of
// the desk that issued it and its times, when the feed brings the code:
// every desk's figures count it as that desk's, issued that day.
func completeForeignCode(ctx context.Context, tx *sql.Tx, c app.Code, batch, expireAt, createdAt int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE codes SET batch_id = ?, expire_at = ?, created_at = ? WHERE random = ? AND code = ? AND created_at = 0`,
		batch, expireAt, createdAt, c.Random, c.String())
	return err
}
