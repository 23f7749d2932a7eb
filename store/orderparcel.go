package store

import (
	"context"
	"database/sql"
	"errors"

	"qrdesk/app"
)

// OrderParcel returns the pickup order the label code is a parcel of
// (app.OrderParcelStore): its ref names an order imported here or marked
// so by the server's feed. The order's parcels are its labels as issued
// (not replacements) by the station that issued the label's original, in
// serial order: the same numbers at every desk of the site. A replacement
// is its original's parcel, handed over when either label is used.
func (d *DB) OrderParcel(ctx context.Context, code string) (*app.OrderParcel, error) {
	var ref, ent, self string
	err := d.db.QueryRowContext(ctx, `SELECT ref, entitlement, code FROM codes WHERE `+byCode, code, code).Scan(&ref, &ent, &self)
	if errors.Is(err, sql.ErrNoRows) || err == nil && ref == "" {
		return nil, nil
	}
	if err != nil {
		return nil, d.wrap(err, "cannot read the order of %s", code)
	}
	p := app.OrderParcel{Waiting: []int{}}
	err = d.db.QueryRowContext(ctx, `SELECT number, customer FROM orders WHERE number = ?
		UNION ALL SELECT number, customer FROM order_marks WHERE number = ? LIMIT 1`, ref, ref).Scan(&p.Number, &p.Customer)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, d.wrap(err, "cannot read the order of %s", code)
	}
	root := self
	if ent != "" {
		root = ent
	}
	var station any // the original's station letter; NULL without serials
	if c, err := app.Parse(root); err == nil && c.HasSerial() {
		station = c.Station
	}
	rows, err := d.db.QueryContext(ctx, `SELECT c.code, c.status = 'used' OR (c.entitlement <> '' AND EXISTS (
			SELECT 1 FROM codes u WHERE u.entitlement = c.code AND u.entitlement <> '' AND u.status = 'used'))
		FROM codes c WHERE c.ref = ? AND c.ref <> '' AND (c.entitlement = '' OR c.entitlement = c.code) AND c.station_id IS ?
		ORDER BY c.serial, c.id`, ref, station)
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
