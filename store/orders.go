package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"qrdesk/app"
)

// recordOrder records the order a batch is issued for, in the batch's
// transaction: an order issued already refuses the batch whole
// (app.ErrOrderIssued), so no import issues an order twice.
func recordOrder(ctx context.Context, tx *sql.Tx, o app.OrderRow, batch, at int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO orders (number, customer, parcels, notes, batch_id, imported_at) VALUES (?, ?, ?, ?, ?, ?)`,
		o.Number, o.Customer, o.Parcels, o.Notes, batch, at)
	if isUnique(err) {
		return app.ErrorfWrap(app.KindConflict, app.ErrOrderIssued, "order %s was issued already: nothing was issued again", o.Number)
	}
	return err
}

// IssuedOrders returns, of the order numbers given, those issued already,
// with their batch and when: imported at this desk (any case), or held as
// labels carrying the number as their ref — issued at another desk, or
// here before this desk was restored from a backup (the feed brings them
// back at its first sync, before which a restored desk issues nothing).
func (d *DB) IssuedOrders(ctx context.Context, numbers []string) (map[string]app.IssuedOrder, error) {
	out := map[string]app.IssuedOrder{}
	imported, err := d.db.PrepareContext(ctx, `SELECT number, customer, parcels, batch_id, imported_at FROM orders WHERE number = ?`)
	if err != nil {
		return nil, d.wrap(err, "cannot read the orders")
	}
	defer imported.Close()
	// "ref <> ''" lets SQLite use the partial index on ref, which
	// COLLATE NOCASE would not: the number as given, in upper and in
	// lower case ("so-7" typed at 'qrdesk issue --ref' is the order SO-7).
	held, err := d.db.PrepareContext(ctx, `SELECT ref, min(batch_id), count(*), min(created_at) FROM codes
		WHERE ref IN (?, ?, ?) AND ref <> '' GROUP BY ref ORDER BY min(batch_id) LIMIT 1`)
	if err != nil {
		return nil, d.wrap(err, "cannot read the orders")
	}
	defer held.Close()
	for _, n := range numbers {
		var o app.IssuedOrder
		err := imported.QueryRowContext(ctx, n).Scan(&o.Number, &o.Customer, &o.Parcels, &o.Batch, &o.IssuedAt)
		if errors.Is(err, sql.ErrNoRows) {
			err = held.QueryRowContext(ctx, n, strings.ToUpper(n), strings.ToLower(n)).Scan(&o.Number, &o.Batch, &o.Parcels, &o.IssuedAt)
		}
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, d.wrap(err, "cannot read the orders")
		default:
			out[n] = o
		}
	}
	return out, nil
}
