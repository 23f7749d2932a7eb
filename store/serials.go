package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"

	"qrdesk/app"
	"qrdesk/protocol"
)

// A desk's daily serials continue after the highest it knows under its
// letter for the label date and prefix: its own batches, every code it
// holds of its letter (the feed brings back, after a restore, the codes it
// issued after the backup) and the highest the server said it holds at the
// last enrolment (protocol.Enrolment.Serials, kept in sync_state as
// server_serials). A desk restored from a backup (restored_at) that has
// not synced since knows none of what it issued after the backup:
// app.Service.Issue refuses unless a supervisor overrides.

// serialMarks is what sync_state keeps as server_serials.
type serialMarks struct {
	Letter string                `json:"letter"`
	Marks  []protocol.SerialMark `json:"marks"`
}

// SetSerialMarks keeps the highest serials the server holds for the
// desk's letter at the server, as the last enrolment said (nil: none, or
// a server before them).
func (d *DB) SetSerialMarks(ctx context.Context, letter string, marks []protocol.SerialMark) error {
	data, err := json.Marshal(serialMarks{Letter: letter, Marks: marks})
	if err != nil {
		return d.wrap(err, "cannot save the sync state")
	}
	_, err = d.db.ExecContext(ctx, `INSERT INTO sync_state (key, value) VALUES ('server_serials', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, string(data))
	return d.wrap(err, "cannot save the sync state")
}

// HeldSerials returns the highest serial of the codes the desk holds per
// letter, label date from from on, and prefix, oldest day first.
func (d *DB) HeldSerials(ctx context.Context, from string) ([]protocol.LetterSerialMark, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT station_id, label_date, prefix, max(serial) FROM codes
		WHERE serial IS NOT NULL AND station_id IS NOT NULL AND label_date >= ?
		GROUP BY station_id, label_date, prefix ORDER BY label_date, station_id, prefix`, from)
	if err != nil {
		return nil, d.wrap(err, "cannot read the serials this desk holds")
	}
	defer rows.Close()
	var out []protocol.LetterSerialMark
	for rows.Next() {
		var m protocol.LetterSerialMark
		if err := rows.Scan(&m.Letter, &m.Date, &m.Prefix, &m.Serial); err != nil {
			return nil, d.wrap(err, "cannot read the serials this desk holds")
		}
		out = append(out, m)
	}
	return out, d.wrap(rows.Err(), "cannot read the serials this desk holds")
}

// RestoredUnsynced returns when this database was put in place by a
// restore ('qrdesk restore') that no sync has followed yet; 0 when none.
func (d *DB) RestoredUnsynced(ctx context.Context) (int64, error) {
	var at int64
	err := d.db.QueryRowContext(ctx, `SELECT COALESCE((SELECT CAST(value AS INTEGER) FROM sync_state WHERE key = 'restored_at'), 0)`).Scan(&at)
	return at, d.wrap(err, "cannot read the sync state")
}

// ClearRestored notes that a sync followed the restore: the desk knows
// from the server what it issued after the backup.
func (d *DB) ClearRestored(ctx context.Context) error {
	_, err := d.db.ExecContext(ctx, `DELETE FROM sync_state WHERE key = 'restored_at'`)
	return d.wrap(err, "cannot save the sync state")
}

// markRestored records, in a restored copy not yet in place, when it was
// restored (RestoredUnsynced). A backup from before syncing existed has
// no sync_state: such a desk never synced, and nothing is marked.
func markRestored(ctx context.Context, path string, at int64) error {
	sqldb, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return err
	}
	defer sqldb.Close()
	var n int
	if err := sqldb.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'sync_state'`).Scan(&n); err != nil || n == 0 {
		return err
	}
	_, err = sqldb.ExecContext(ctx, `INSERT INTO sync_state (key, value) VALUES ('restored_at', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.FormatInt(at, 10))
	return err
}

// highestSerial is the highest serial this desk knows under stationID for
// the label date and prefix (see above): the next batch starts after it.
func highestSerial(ctx context.Context, tx *sql.Tx, labelDate, prefix, stationID string) (int, error) {
	var own, held int
	var marks string
	err := tx.QueryRowContext(ctx, `SELECT
		COALESCE((SELECT MAX(last_serial) FROM batches WHERE label_date = ?1 AND prefix = ?2 AND station_id = ?3), 0),
		COALESCE((SELECT MAX(serial) FROM codes WHERE label_date = ?1 AND prefix = ?2 AND station_id = ?3), 0),
		COALESCE((SELECT value FROM sync_state WHERE key = 'server_serials'), '')`,
		labelDate, prefix, stationID).Scan(&own, &held, &marks)
	if err != nil {
		return 0, err
	}
	high := max(own, held)
	if marks != "" {
		var kept serialMarks
		if err := json.Unmarshal([]byte(marks), &kept); err != nil {
			return 0, errors.New("the server's serials kept in sync_state are damaged")
		}
		for _, m := range kept.Marks {
			if kept.Letter == stationID && m.Date == labelDate && m.Prefix == prefix {
				high = max(high, m.Serial)
			}
		}
	}
	return high, nil
}

// recoverOwnCode puts a code the feed brings that this desk issued (the
// server names this desk's station) and did not hold (a desk restored from
// a backup older than the batch) in a batch of this desk again, uploaded
// already: the desk counts it as issued here, and its serials continue
// after it. The codes of one batch at the server (one issue time, label
// date, prefix, letter, expiry and ref) come back in one batch.
func recoverOwnCode(ctx context.Context, tx *sql.Tx, station string, c app.Code, createdAt, expireAt int64, ref string) error {
	var own string
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT value FROM sync_state WHERE key = 'server_station'), '')`).Scan(&own); err != nil {
		return err
	}
	if station == "" || station != own || createdAt == 0 {
		return nil
	}
	letter := ""
	if c.HasSerial() {
		letter = c.Station
	}
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM batches WHERE station = ? AND created_at = ? AND label_date = ? AND prefix = ? AND station_id = ? AND expire_at = ? AND ref = ? AND operator = ?`,
		station, createdAt, c.LabelDate(), c.Prefix, letter, expireAt, ref, recoveredOperator).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		res, err := tx.ExecContext(ctx, `INSERT INTO batches (label_date, count, ref, expire_at, created_at, first_serial, last_serial, prefix, station_id, station, operator, uploaded)
			VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`, c.LabelDate(), ref, expireAt, createdAt, c.Serial, c.Serial, c.Prefix, letter, station, recoveredOperator)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		if _, err := tx.ExecContext(ctx, `UPDATE batches SET count = count + 1,
			first_serial = CASE WHEN ? > 0 AND (first_serial = 0 OR ? < first_serial) THEN ? ELSE first_serial END,
			last_serial = max(last_serial, ?) WHERE id = ?`, c.Serial, c.Serial, c.Serial, c.Serial, id); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE codes SET batch_id = ? WHERE random = ? AND code = ?`, id, c.Random, c.String())
	return err
}

// recoveredOperator names, in a batch recoverOwnCode made, who issued it:
// the feed does not say.
const recoveredOperator = "(restored from the server)"

// HighestSerial is the highest daily serial this desk knows under
// stationID for the label date and prefix (the next batch starts after
// it): what an order import checks its labels fit after, before it issues
// anything.
func (d *DB) HighestSerial(ctx context.Context, labelDate, prefix, stationID string) (int, error) {
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, d.wrap(err, "cannot read the day's serials")
	}
	defer tx.Rollback()
	high, err := highestSerial(ctx, tx, labelDate, prefix, stationID)
	if err != nil {
		return 0, d.wrap(err, "cannot read the day's serials")
	}
	marked, err := d.markedSerial(stationID, labelDate, prefix) // serialmark.go
	if err != nil {
		return 0, d.wrap(err, "cannot read the day's serials")
	}
	return max(high, marked), nil
}
