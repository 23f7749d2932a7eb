package store

import (
	"context"

	"qrdesk/app"
)

// RekeyEvent gives the pending outbox event old a new event id, in one
// transaction with everything that names it: the redemption and the scan it
// records, the undos of it (here and in the outbox), and the write number a
// server gave it (a number of that id is one the server no longer holds as
// this desk's). A server restored from a backup can have let another desk
// take an event id the feed showed it; the event is still this desk's fact,
// and goes again under the new id. It returns "" when old no longer waits
// in the outbox (another process of this desk sent or renumbered it).
func (d *DB) RekeyEvent(ctx context.Context, old string) (string, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return "", d.wrap(err, "cannot renumber event %s", old)
	}
	defer tx.Rollback()
	id := app.NewTraceID()
	res, err := tx.ExecContext(ctx, `UPDATE outbox SET event_id = ? WHERE event_id = ? AND state = 'pending'`, id, old)
	if err != nil {
		return "", d.wrap(err, "cannot renumber event %s", old)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return "", nil // no longer waiting: another process of this desk sent or renumbered it
	}
	for _, q := range []string{
		`UPDATE redemptions SET trace_id = ? WHERE trace_id = ?`,
		`UPDATE scans SET trace_id = ? WHERE trace_id = ?`,
		`UPDATE undos SET undoes = ? WHERE undoes = ?`,
		`UPDATE outbox SET undoes = ? WHERE undoes = ?`,
		`UPDATE undos SET event_id = ? WHERE event_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, id, old); err != nil {
			return "", d.wrap(err, "cannot renumber event %s", old)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM server_writes WHERE key = ?`, old); err != nil {
		return "", d.wrap(err, "cannot renumber event %s", old)
	}
	return id, d.wrap(tx.Commit(), "cannot renumber event %s", old)
}
