package serverdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"qrdesk/app"
	"qrdesk/central"
)

// expire applies a desk's expiry of one label of a closed day with one
// guarded UPDATE: only an unused label expires. A label used, disabled or
// expired at the server meanwhile stays as it is (not_expired); the desk
// that closed the day learns the server's state from the feed, which
// carries the other desk's change. An accepted expiry goes to every desk
// through the feed with the label's resulting status.
func (c *DB) expire(ctx context.Context, tx *etx, st central.Station, ev central.Event) (central.Result, error) {
	res, err := tx.exec(ctx, `UPDATE codes SET status = 'expired' WHERE code = ? AND status = 'unused'`, ev.Code)
	if err != nil {
		return central.Result{}, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		data, _ := json.Marshal(map[string]any{"at": ev.At, "operator": ev.Operator, "event_id": ev.EventID, "reason": ev.Reason, "status": app.StatusExpired})
		return central.Result{Outcome: central.OutcomeExpired, Status: string(app.StatusExpired)},
			c.addChanges(ctx, tx, change{central.KindExpire, ev.Code, st.Name, string(data)})
	}
	cc, err := c.readCode(ctx, tx, ev.Code)
	if errors.Is(err, sql.ErrNoRows) {
		return central.Result{Outcome: central.OutcomeUnknown, Reason: "the server has no such code: upload the batch first"}, nil
	}
	if err != nil {
		return central.Result{}, err
	}
	r := central.Result{Outcome: central.OutcomeNotExpired, Reason: "the label is " + cc.status + " at the server", Status: cc.status}
	if cc.status == string(app.StatusUsed) {
		r.UsedAt, r.UsedStation, r.UsedOperator = cc.usedAt, cc.usedStation, cc.usedOperator
		r.Reason += " (" + cc.usedStation + ", " + app.FormatTime(cc.usedAt) + ")"
	}
	return r, nil
}

// expiredReason explains an online refusal of an expired label: by its
// expiry time, or by the close of its day (no expiry time).
func expiredReason(cc centralCode) string {
	if cc.expireAt == 0 {
		return "expired when its day was closed"
	}
	return "expired at " + app.FormatTime(cc.expireAt)
}

// closedAt is when a desk closed the day of a label the server expired by
// that close (the expire event's time, the desk's clock; 0 when none).
func (c *DB) closedAt(ctx context.Context, tx *etx, code string) (int64, error) {
	var at int64
	err := tx.queryRow(ctx, `SELECT COALESCE(min(at), 0) FROM events WHERE code = ? AND kind = ? AND outcome = ?`, code, central.KindExpire, central.OutcomeExpired).Scan(&at)
	return at, err
}
