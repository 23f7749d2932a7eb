package store

import (
	"context"
	"database/sql"
	"errors"

	"qrdesk/app"
)

var _ app.ReplaceStore = (*DB)(nil)

// ReplaceCode disables a label and issues its replacement in one
// transaction (see app.ReplaceStore).
func (d *DB) ReplaceCode(ctx context.Context, old app.Code, reason string, spec app.BatchSpec, makeCode func(serial int) (app.Code, error)) (app.Replacement, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	defer tx.Rollback()
	rec, err := lookup(ctx, tx, old)
	if errors.Is(err, app.ErrNotFound) {
		return app.Replacement{}, app.Errorf(app.KindNotFound, "label %s is not in this desk's database: nothing to replace", old)
	}
	if err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	if err := replaceable(rec, spec.CreatedAt); err != nil {
		return app.Replacement{}, err
	}

	b := app.Batch{LabelDate: spec.LabelDate, Count: 1, Type: rec.Type, Ref: rec.Ref, ExpireAt: rec.ExpireAt, CreatedAt: spec.CreatedAt,
		Station: spec.Station, Operator: spec.Operator}
	var stationID sql.NullString
	if spec.Serial {
		stationID = sql.NullString{String: spec.StationID, Valid: true}
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(last_serial), 0) + 1 FROM batches WHERE label_date = ? AND prefix = ? AND station_id = ?`,
			spec.LabelDate, spec.Prefix, spec.StationID).Scan(&b.FirstSerial); err != nil {
			return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
		}
		b.LastSerial = b.FirstSerial
	}
	nc, err := makeCode(b.FirstSerial)
	if err != nil {
		return app.Replacement{}, err
	}
	// The guarded change of the old label: only while it is still unused
	// or disabled and not expired, whatever happened since the lookup.
	res, err := tx.ExecContext(ctx, `UPDATE codes SET status = 'disabled', disabled_reason = ?
		WHERE id = ? AND status IN ('unused', 'disabled') AND (expire_at = 0 OR expire_at > ?)`, "replaced by "+nc.String(), rec.ID, spec.CreatedAt)
	if err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return app.Replacement{}, app.Errorf(app.KindConflict, "label %s changed while it was being replaced: look it up and try again", old)
	}
	r, err := tx.ExecContext(ctx, `INSERT INTO batches (label_date, count, type, ref, expire_at, created_at, first_serial, last_serial, prefix, station_id, station, operator)
		VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, b.LabelDate, b.Type, b.Ref, b.ExpireAt, b.CreatedAt, b.FirstSerial, b.LastSerial,
		spec.Prefix, stationID.String, b.Station, b.Operator)
	if err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	if b.ID, err = r.LastInsertId(); err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	var serial sql.NullInt64
	if spec.Serial {
		serial = sql.NullInt64{Int64: int64(b.FirstSerial), Valid: true}
	}
	var newID int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO codes (code, random, prefix, label_date, station_id, serial, batch_id, type, ref, key_id, expire_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, nc.String(), nc.Random, nc.Prefix, b.LabelDate, stationID, serial,
		b.ID, b.Type, b.Ref, string(nc.KeyID), b.ExpireAt, b.CreatedAt).Scan(&newID); err != nil {
		return app.Replacement{}, d.issueError(err, b.FirstSerial)
	}
	audit := `INSERT INTO audit (at, station, operator, action, subject, code_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?)`
	if _, err := tx.ExecContext(ctx, audit, spec.CreatedAt, spec.Station, spec.Operator, "replace", old.String(), rec.ID, "replaced by "+nc.String()+": "+reason); err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	if _, err := tx.ExecContext(ctx, audit, spec.CreatedAt, spec.Station, spec.Operator, "replacement", nc.String(), newID, "replaces "+old.String()+": "+reason); err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	// The server hears of the disable through the outbox and of the new
	// code through the batch upload. A label disabled before is disabled
	// there already (or on its way): only its reason changes here.
	if rec.Status == app.StatusUnused {
		if err := addOutbox(ctx, tx, app.NewTraceID(), "disable", old.String(), spec.Operator, spec.CreatedAt, "replaced by "+nc.String()); err != nil {
			return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
		}
	}
	newRec, err := lookup(ctx, tx, nc)
	if err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	if err := tx.Commit(); err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	return app.Replacement{Old: old.String(), New: newRec, Batch: b.ID, Reason: reason}, nil
}

// replaceable says why a label cannot be replaced, in the clerk's words.
func replaceable(rec app.CodeRecord, now int64) error {
	switch {
	case rec.Status == app.StatusUsed:
		return app.Errorf(app.KindConflict, "label %s was already used (%s at %s): a used label cannot be replaced", rec.Code, app.FormatTime(rec.UsedAt), rec.UsedStation)
	case rec.Status == app.StatusExpired || (rec.ExpireAt != 0 && rec.ExpireAt <= now):
		return app.Errorf(app.KindConflict, "label %s expired at %s: issue a new label instead", rec.Code, app.FormatTime(rec.ExpireAt))
	}
	return nil
}
