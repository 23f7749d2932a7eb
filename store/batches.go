package store

import (
	"context"
	"database/sql"
	"errors"

	"qrdesk/app"
)

const batchColumns = `SELECT b.id, b.label_date, b.count, b.type, b.ref, b.expire_at, b.created_at, b.first_serial, b.last_serial,
	b.station, b.operator, (SELECT count(*) FROM codes c WHERE c.batch_id = b.id AND c.print_count > 0) FROM batches b`

func scanBatch(s scanner) (app.Batch, error) {
	var b app.Batch
	err := s.Scan(&b.ID, &b.LabelDate, &b.Count, &b.Type, &b.Ref, &b.ExpireAt, &b.CreatedAt, &b.FirstSerial, &b.LastSerial,
		&b.Station, &b.Operator, &b.Printed)
	return b, err
}

// Batch returns one batch, or app.ErrNotFound.
func (d *DB) Batch(ctx context.Context, id int64) (app.Batch, error) {
	b, err := scanBatch(d.db.QueryRowContext(ctx, batchColumns+` WHERE b.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return app.Batch{}, app.ErrNotFound
	}
	return b, d.wrap(err, "cannot read batch %d", id)
}

// Batches lists the batches created in [from, to), newest first.
func (d *DB) Batches(ctx context.Context, from, to int64) ([]app.Batch, error) {
	rows, err := d.db.QueryContext(ctx, batchColumns+` WHERE b.created_at >= ? AND b.created_at < ? ORDER BY b.id DESC`, from, to)
	if err != nil {
		return nil, d.wrap(err, "cannot list batches")
	}
	defer rows.Close()
	var out []app.Batch
	for rows.Next() {
		b, err := scanBatch(rows)
		if err != nil {
			return nil, d.wrap(err, "cannot list batches")
		}
		out = append(out, b)
	}
	return out, d.wrap(rows.Err(), "cannot list batches")
}

// BatchCodes returns the codes of a batch in issue order.
func (d *DB) BatchCodes(ctx context.Context, id int64) ([]app.CodeRecord, error) {
	return d.records(ctx, recordColumns+` WHERE c.batch_id = ? ORDER BY c.id`, id)
}

// EachBatchCode calls each with every code of a batch in issue order,
// reading them as it goes (see app.Store).
func (d *DB) EachBatchCode(ctx context.Context, id int64, each func(code string) error) error {
	rows, err := d.db.QueryContext(ctx, `SELECT code FROM codes WHERE batch_id = ? ORDER BY id`, id)
	if err != nil {
		return d.wrap(err, "cannot read batch %d", id)
	}
	defer rows.Close()
	var code string
	for rows.Next() {
		if err := rows.Scan(&code); err != nil {
			return d.wrap(err, "cannot read batch %d", id)
		}
		if err := each(code); err != nil {
			return err
		}
	}
	return d.wrap(rows.Err(), "cannot read batch %d", id)
}
