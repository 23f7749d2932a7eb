package store

import (
	"context"
	"database/sql"
	"errors"

	"qrdesk/app"
)

// OrderParcel returns the pickup order the label code is a parcel of
// (app.OrderParcelStore): its original is a label of an order imported
// here (its batch is the order's) or one the server's feed marked as an
// order's (order_labels). The order's parcels are its labels as issued
// (not replacements): the imported order's batch, or the marked labels of
// its number issued by the original's station, in serial order: the same
// numbers at every desk of the site. A replacement is its original's
// parcel, handed over when either label is used. A label of another site
// comes unmarked (the desk holds it alone, not the order's other parcels):
// no parcel is named for it, even when this desk imported an order of the
// same number itself.
func (d *DB) OrderParcel(ctx context.Context, code string) (*app.OrderParcel, error) {
	var ref, ent, self string
	err := d.db.QueryRowContext(ctx, `SELECT ref, entitlement, code FROM codes WHERE `+byCode, code, code).Scan(&ref, &ent, &self)
	if errors.Is(err, sql.ErrNoRows) || err == nil && ref == "" {
		return nil, nil
	}
	if err != nil {
		return nil, d.wrap(err, "cannot read the order of %s", code)
	}
	root := self
	if ent != "" {
		root = ent
	}
	var batch int64
	var own, marked bool
	err = d.db.QueryRowContext(ctx, `SELECT c.batch_id, EXISTS (SELECT 1 FROM orders o WHERE o.batch_id = c.batch_id),
		EXISTS (SELECT 1 FROM order_labels l WHERE l.code = c.code) FROM codes c WHERE `+byCode, root, root).Scan(&batch, &own, &marked)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !own && !marked {
		return nil, nil // its original is not held here (yet), or no order's
	}
	if err != nil {
		return nil, d.wrap(err, "cannot read the order of %s", code)
	}
	p := app.OrderParcel{Waiting: []int{}}
	parcels := `SELECT c.code, c.status = 'used' OR (c.entitlement <> '' AND EXISTS (
			SELECT 1 FROM codes u WHERE u.entitlement = c.code AND u.entitlement <> '' AND u.status = 'used'))
		FROM codes c `
	var rows *sql.Rows
	if own {
		if err := d.db.QueryRowContext(ctx, `SELECT number, customer FROM orders WHERE batch_id = ?`, batch).Scan(&p.Number, &p.Customer); err != nil {
			return nil, d.wrap(err, "cannot read the order of %s", code)
		}
		rows, err = d.db.QueryContext(ctx, parcels+`WHERE c.batch_id = ? AND (c.entitlement = '' OR c.entitlement = c.code) ORDER BY c.serial, c.id`, batch)
	} else {
		err = d.db.QueryRowContext(ctx, `SELECT number, customer FROM order_marks WHERE number = ?`, ref).Scan(&p.Number, &p.Customer)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		if err != nil {
			return nil, d.wrap(err, "cannot read the order of %s", code)
		}
		var station any // the original's station letter; NULL without serials
		if c, err := app.Parse(root); err == nil && c.HasSerial() {
			station = c.Station
		}
		rows, err = d.db.QueryContext(ctx, parcels+`JOIN order_labels l ON l.code = c.code
			WHERE c.ref = ? AND c.ref <> '' AND (c.entitlement = '' OR c.entitlement = c.code) AND c.station_id IS ?
			ORDER BY c.serial, c.id`, ref, station)
	}
	if err != nil {
		return nil, d.wrap(err, "cannot read the order of %s", code)
	}
	defer rows.Close()
	for rows.Next() {
		var c string
		var used bool
		if err := rows.Scan(&c, &used); err != nil {
			return nil, d.wrap(err, "cannot read the order of %s", code)
		}
		p.Parcels++
		switch {
		case c == root:
			p.Parcel = p.Parcels
		case !used:
			p.Waiting = append(p.Waiting, p.Parcels)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, d.wrap(err, "cannot read the order of %s", code)
	}
	if p.Parcel == 0 {
		return nil, nil // its original is not held here (yet)
	}
	return &p, nil
}
