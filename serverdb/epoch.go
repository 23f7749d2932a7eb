package serverdb

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"qrdesk/central"
)

// History epochs: a restore from a backup starts a new one (StartEpoch),
// and each station's desk is told once, at its next enrolment, that the
// server lost history (CatchUpEpoch), so it sends everything again: the
// server recognises what it holds and never doubles it. This covers the
// desks whose own writes survived too: what they read of the others'
// since the backup is gone as well.

// epoch is the deployment's history epoch (0: never restored).
func (c *DB) epoch(ctx context.Context) (int64, error) {
	var v string
	err := c.e.queryRow(ctx, `SELECT value FROM deployment WHERE key = 'epoch'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(v, 10, 64)
}

// StartEpoch starts a new history epoch and returns its number.
func (c *DB) StartEpoch(ctx context.Context) (int64, error) {
	tx, err := c.e.begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.done()
	var v string
	err = tx.queryRow(ctx, `SELECT value FROM deployment WHERE key = 'epoch'`).Scan(&v)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	n++
	if _, err := tx.exec(ctx, `INSERT INTO deployment (key, value) VALUES ('epoch', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.FormatInt(n, 10)); err != nil {
		return 0, err
	}
	return n, tx.commit()
}

// CatchUpEpoch reports whether the station had not enrolled since the
// latest restore, and records that it has now.
func (c *DB) CatchUpEpoch(ctx context.Context, st central.Station) (bool, error) {
	n, err := c.epoch(ctx)
	if err != nil || n == 0 {
		return false, err
	}
	tx, err := c.e.begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.done()
	res, err := tx.exec(ctx, `UPDATE stations SET epoch = ? WHERE id = ? AND epoch < ?`, n, st.ID, n)
	if err != nil {
		return false, err
	}
	behind, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return behind > 0, tx.commit()
}
