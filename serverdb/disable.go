package serverdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/entitlement"
	"qrdesk/protocol"
)

// setDisabled decides a disable or an enable: the guarded UPDATE of the
// label, refused (flagged) when its supervisor had been removed from the
// staff list by the event's time (central.RefusedByRemovedStaff).
func (c *DB) setDisabled(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, now int64) (protocol.Result, central.Note, error) {
	q := `UPDATE codes SET status = 'disabled', disabled_reason = ? WHERE code = ? AND status = 'unused'`
	reason := ev.Reason
	if ev.Kind == protocol.KindEnable {
		q, reason = `UPDATE codes SET status = 'unused', disabled_reason = ? WHERE code = ? AND status = 'disabled'`, ""
	}
	// The label under its lock (labellock.go): a refusal below names the
	// status that refused it, not one an undo of it is leaving.
	cc, err := c.lockLabel(ctx, tx, ev.Code)
	if errors.Is(err, sql.ErrNoRows) {
		return protocol.Result{Outcome: protocol.OutcomeUnknown, Reason: "the server has no such code: upload the batch first"}, central.Note{}, nil
	}
	if err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	removed, err := c.removedSupervisor(ctx, tx, ev, now)
	if err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	if note, why, refused := central.RefusedByRemovedStaff(ev.Kind, ev.Operator, removed); refused {
		// The label stays as it is; the desk's copy follows.
		return protocol.Result{Outcome: protocol.OutcomeRejected, Reason: why, Status: cc.status}, note, nil
	}
	if ev.Kind == protocol.KindEnable {
		// A replaced label valid again would be a second valid label.
		var bad *entitlement.Refusal
		if err := c.checkOneValid(ctx, tx, ev.Code); errors.As(err, &bad) {
			// The label stays as it is: disabled, or used.
			return protocol.Result{Outcome: protocol.OutcomeRejected, Reason: bad.Reason, Status: cc.status}, central.Note{}, nil
		} else if err != nil {
			return protocol.Result{}, central.Note{}, err
		}
	}
	res, err := tx.exec(ctx, q, reason, ev.Code)
	if err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return protocol.Result{Outcome: protocol.OutcomeRejected, Reason: "the code is " + cc.status, Status: cc.status}, central.Note{}, nil
	}
	status, outcome := app.StatusDisabled, protocol.OutcomeDisabled
	if ev.Kind == protocol.KindEnable {
		status, outcome = app.StatusUnused, protocol.OutcomeEnabled
	}
	data, _ := json.Marshal(map[string]any{"reason": reason, "operator": ev.Operator, "at": ev.At, "event_id": ev.EventID, "status": status})
	return protocol.Result{Outcome: outcome, Status: string(status)}, central.Note{}, c.addChanges(ctx, tx, change{ev.Kind, ev.Code, st.Name, string(data)})
}
