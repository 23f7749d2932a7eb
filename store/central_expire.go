package store

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
func (c *CentralDB) expire(ctx context.Context, tx *etx, st central.Station, ev central.Event) (central.Result, error) {
	res, err := tx.exec(ctx, `UPDATE codes SET status = 'expired' WHERE code = ? AND status = 'unused'`, ev.Code)
	if err != nil {
		return central.Result{}, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		data, _ := json.Marshal(map[string]any{"at": ev.At, "operator": ev.Operator, "event_id": ev.EventID, "reason": ev.Reason, "status": "expired"})
		return central.Result{Outcome: central.OutcomeExpired}, c.addChanges(ctx, tx, change{central.KindExpire, ev.Code, st.Name, string(data)})
	}
	cc, err := c.readCode(ctx, tx, ev.Code)
	if errors.Is(err, sql.ErrNoRows) {
		return central.Result{Outcome: central.OutcomeUnknown, Reason: "the server has no such code: upload the batch first"}, nil
	}
	if err != nil {
		return central.Result{}, err
	}
	r := central.Result{Outcome: central.OutcomeNotExpired, Reason: "the label is " + cc.status + " at the server"}
	if cc.status == "used" {
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

// closedDayFlag is the flag of an offline redemption, at when, of a label
// the server has expired by the close of its day: "" when the desk
// redeemed it before the day was closed (its close reached the server
// first), the flag otherwise.
func (c *CentralDB) closedDayFlag(ctx context.Context, tx *etx, code string, when int64) (string, error) {
	var closedAt int64
	err := tx.queryRow(ctx, `SELECT COALESCE(min(at), 0) FROM events WHERE code = ? AND kind = ? AND outcome = ?`, code, central.KindExpire, central.OutcomeExpired).Scan(&closedAt)
	if err != nil {
		return "", err
	}
	if closedAt != 0 && when < closedAt {
		return "", nil
	}
	return "redeemed offline after its day was closed (expired " + app.FormatTime(closedAt) + ")", nil
}
