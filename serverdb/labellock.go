package serverdb

import (
	"context"
	"database/sql"
	"errors"
)

// Label locks (PostgreSQL). A transaction there runs at READ COMMITTED:
// each statement sees what was committed when it began, a guarded UPDATE
// whose guard fails on that view skips the row without waiting for it, and
// one that waits for the row re-checks the row but not its subqueries.
// So two decisions about one label made side by side each see the label as
// it was before the other: an undo's "no conflict recorded" guard misses
// the conflict an offline redemption is recording, and that redemption's
// guarded UPDATE (the label is used) lets the undo through unseen.
//
// Every event that changes a label by what it finds there (redeem on the
// general path, undo, disable, enable, expire, replace) therefore holds
// the label's row (lockLabel) before it reads anything it decides by, and
// decides with statements begun after: the one that held the row before
// has committed. The one-statement online redemption (onlineredeem.go)
// takes no lock of its own: its guarded UPDATE waits for a held row and
// re-checks it. SQLite's writers go one at a time and take none of this.
//
// Order: the entitlement's root row first, then the label's own (then, for
// a replacement or an expiry of a replaced label, other labels of the
// entitlement): every transaction that holds more than one takes them in
// that order, so none waits for another in a circle.

// lockLabel holds the row of the label code and of its entitlement's root
// until the transaction ends (PostgreSQL), and returns the label read
// under them: nothing changes it until the transaction ends.
// sql.ErrNoRows: the server has no such code.
func (c *DB) lockLabel(ctx context.Context, tx *etx, code string) (centralCode, error) {
	if !c.e.postgres {
		return c.readCode(ctx, tx, code)
	}
	var ent string
	if err := tx.queryRow(ctx, `SELECT entitlement FROM codes WHERE code = ?`, code).Scan(&ent); err != nil {
		return centralCode{}, err
	}
	if err := c.lockEntitlement(ctx, tx, ent); err != nil {
		return centralCode{}, err
	}
	cc, err := c.lockCode(ctx, tx, code)
	if err != nil || cc.entitlement == ent {
		return cc, err
	}
	// Linked meanwhile, as a replacement's new label (an entitlement is set
	// once, by a replacement holding the root's row and this one). The root
	// comes second here, out of order: should that ever close a circle,
	// PostgreSQL ends one transaction with an error and the desk sends its
	// event again.
	return cc, c.lockEntitlement(ctx, tx, cc.entitlement)
}

// lockEntitlement holds the root label's row of the entitlement ent until
// the transaction ends (PostgreSQL; nothing on SQLite, and nothing for "").
func (c *DB) lockEntitlement(ctx context.Context, tx *etx, ent string) error {
	if ent == "" || !c.e.postgres {
		return nil
	}
	var one int
	err := tx.queryRow(ctx, `SELECT 1 FROM codes WHERE code = ? FOR UPDATE`, ent).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}

// lockCode holds the row of code alone until the transaction ends
// (PostgreSQL) and returns it read under the lock; the caller holds its
// entitlement's root already (the order above). sql.ErrNoRows: no such code.
func (c *DB) lockCode(ctx context.Context, tx *etx, code string) (centralCode, error) {
	if !c.e.postgres {
		return c.readCode(ctx, tx, code)
	}
	return scanCode(tx.queryRow(ctx, selectCode+` FOR UPDATE`, code))
}
