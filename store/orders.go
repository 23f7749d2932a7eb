package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"golang.org/x/text/unicode/norm"

	"qrdesk/app"
)

// recordOrder records the order a batch is issued for, in the batch's
// transaction: an order issued already, in any spelling a clerk reads as
// the same (app.OrderKey, unique in orders.number_key), refuses the batch
// whole (app.ErrOrderIssued), so no import issues an order twice.
func recordOrder(ctx context.Context, tx *sql.Tx, o app.OrderRow, batch, at int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO orders (number, customer, parcels, notes, batch_id, imported_at, number_key) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		o.Number, o.Customer, o.Parcels, o.Notes, batch, at, app.OrderKey(o.Number))
	if isUnique(err) {
		return app.ErrorfWrap(app.KindConflict, app.ErrOrderIssued, "order %s was issued already: nothing was issued again", o.Number)
	}
	return err
}

// fillOrderKeys gives every order without its key (imported by a release
// before number_key, or marked by its feed) its key: run at Open, after
// the migrations. Of two orders an older release issued in two spellings
// of one number, the first keeps the key and the other none (UPDATE OR
// IGNORE): the first names the order as issued.
func fillOrderKeys(ctx context.Context, db *sql.DB) error {
	for _, table := range []string{"orders", "order_marks"} {
		if err := fillKeys(ctx, db, table); err != nil {
			return err
		}
	}
	return nil
}

func fillKeys(ctx context.Context, db *sql.DB, table string) error {
	rows, err := db.QueryContext(ctx, `SELECT rowid, number FROM `+table+` WHERE number_key = '' ORDER BY rowid`)
	if err != nil {
		return err
	}
	type row struct {
		id  int64
		key string
	}
	var keys []row
	for rows.Next() {
		var id int64
		var number string
		if err := rows.Scan(&id, &number); err != nil {
			rows.Close()
			return err
		}
		keys = append(keys, row{id, app.OrderKey(number)})
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(keys) == 0 {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, `UPDATE OR IGNORE `+table+` SET number_key = ? WHERE rowid = ? AND number_key = ''`, k.key, k.id); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// IssuedOrders returns, of the order numbers given, those issued already,
// with their batch and when: imported at this desk, or held as labels
// carrying the number as their ref — issued at another desk of the site
// (found in any spelling a clerk reads as the same, app.OrderKey, through
// the order the feed marked), with 'qrdesk issue --ref', or here before
// this desk was restored from a backup (the feed brings them back at its
// first sync, before which a restored desk issues nothing).
func (d *DB) IssuedOrders(ctx context.Context, numbers []string) (map[string]app.IssuedOrder, error) {
	out := map[string]app.IssuedOrder{}
	var q issuedQueries
	if err := q.prepare(ctx, d.db); err != nil {
		return nil, d.wrap(err, "cannot read the orders")
	}
	defer q.close()
	for _, n := range numbers {
		o, ok, err := q.find(ctx, n)
		if err != nil {
			return nil, d.wrap(err, "cannot read the orders")
		}
		if ok {
			out[n] = o
		}
	}
	return out, nil
}

// issuedQueries are IssuedOrders' statements, prepared once for a file.
type issuedQueries struct {
	imported, marked, held *sql.Stmt
}

func (q *issuedQueries) prepare(ctx context.Context, db *sql.DB) error {
	var err error
	if q.imported, err = db.PrepareContext(ctx, `SELECT number, customer, parcels, batch_id, imported_at FROM orders
		WHERE number_key = ? AND number_key <> ''`); err != nil {
		return err
	}
	if q.marked, err = db.PrepareContext(ctx, `SELECT number, customer FROM order_marks WHERE number_key = ? ORDER BY rowid LIMIT 1`); err != nil {
		return err
	}
	// A ref is compared as given, in upper and in lower case, composed or
	// not ("so-7" typed at 'qrdesk issue --ref' is the order SO-7; "ä1"
	// is Ä1): "ref <> ''" lets SQLite use the partial index on ref, which
	// a fold in SQL would not. A ref in mixed case ("So-7") that no order
	// mark spells is found by a number in that very case, upper or lower.
	q.held, err = db.PrepareContext(ctx, `SELECT ref, min(batch_id), count(*), min(created_at) FROM codes
		WHERE ref IN (?, ?, ?, ?, ?, ?) AND ref <> '' GROUP BY ref ORDER BY min(batch_id) LIMIT 1`)
	return err
}

func (q *issuedQueries) close() {
	for _, st := range []*sql.Stmt{q.imported, q.marked, q.held} {
		if st != nil {
			st.Close()
		}
	}
}

// find is the order n issued before: imported here, else held as labels
// under n or under the spelling of it the feed marked (another desk's
// import, which also names the customer).
func (q *issuedQueries) find(ctx context.Context, n string) (app.IssuedOrder, bool, error) {
	var o app.IssuedOrder
	key := app.OrderKey(n)
	err := q.imported.QueryRowContext(ctx, key).Scan(&o.Number, &o.Customer, &o.Parcels, &o.Batch, &o.IssuedAt)
	if !errors.Is(err, sql.ErrNoRows) {
		return o, err == nil, err
	}
	spelled, customer := n, ""
	if err := q.marked.QueryRowContext(ctx, key).Scan(&spelled, &customer); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return o, false, err
	}
	err = q.heldAs(ctx, n, &o)
	if errors.Is(err, sql.ErrNoRows) && spelled != n {
		err = q.heldAs(ctx, spelled, &o)
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return o, false, nil
	case err != nil:
		return o, false, err
	}
	o.Customer = customer
	return o, true, nil
}

func (q *issuedQueries) heldAs(ctx context.Context, n string, o *app.IssuedOrder) error {
	c := norm.NFC.String(n)
	return q.held.QueryRowContext(ctx, n, strings.ToUpper(n), strings.ToLower(n), c, strings.ToUpper(c), strings.ToLower(c)).Scan(&o.Number, &o.Batch, &o.Parcels, &o.IssuedAt)
}
