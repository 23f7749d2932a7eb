package serverdb

import (
	"context"
)

// A label's row as a decision reads it: readCode without a lock (SQLite,
// whose writers go one at a time), lockLabel holding it (labellock.go).

type centralCode struct {
	status, usedStation, usedOperator, usedEvent, reason string
	usedAt, expireAt, createdAt                          int64
	entitlement                                          string // its root label's code; "" never replaced
	site                                                 int64  // the site it belongs to
}

// selectCode reads one label's row, for scanCode.
const selectCode = `SELECT status, used_at, used_station, used_operator, used_event, disabled_reason, expire_at, created_at, entitlement, site FROM codes WHERE code = ?`

// readCode reads the label code as the statement finds it; a decision
// about it reads it under its lock instead (lockLabel).
func (c *DB) readCode(ctx context.Context, tx *etx, code string) (centralCode, error) {
	return scanCode(tx.queryRow(ctx, selectCode, code))
}

func scanCode(row writeRow) (centralCode, error) {
	var cc centralCode
	err := row.Scan(&cc.status, &cc.usedAt, &cc.usedStation, &cc.usedOperator, &cc.usedEvent, &cc.reason, &cc.expireAt, &cc.createdAt, &cc.entitlement, &cc.site)
	return cc, err
}
