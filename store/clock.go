package store

import (
	"context"
	"strconv"

	"qrdesk/app"
)

// The desk's last measurement of its clock against the server's
// (app.ClockOffset), kept in sync_state; the outbox_clock trigger
// (migrations/sqlite/0013_clock_offset.sql) stamps it on every event queued.

func (d *DB) SetClockOffset(ctx context.Context, c app.ClockOffset) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot save the clock offset")
	}
	defer tx.Rollback()
	for key, v := range map[string]int64{"clock_offset_ms": c.OffsetMS, "clock_measured_at": c.MeasuredAt} {
		if err := setSyncState(ctx, tx, key, strconv.FormatInt(v, 10)); err != nil {
			return d.wrap(err, "cannot save the clock offset")
		}
	}
	return d.wrap(tx.Commit(), "cannot save the clock offset")
}

func (d *DB) ClockOffset(ctx context.Context) (app.ClockOffset, error) {
	var c app.ClockOffset
	err := d.db.QueryRowContext(ctx, `SELECT `+clockColumns).Scan(&c.OffsetMS, &c.MeasuredAt)
	return c, d.wrap(err, "cannot read the clock offset")
}

// clockColumns selects the last measurement (zeros: none).
const clockColumns = `COALESCE((SELECT CAST(value AS INTEGER) FROM sync_state WHERE key = 'clock_offset_ms'), 0),
		COALESCE((SELECT CAST(value AS INTEGER) FROM sync_state WHERE key = 'clock_measured_at'), 0)`
