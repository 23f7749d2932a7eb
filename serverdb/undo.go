package serverdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/protocol"
)

// undo applies a desk's undo of its redemption with one guarded UPDATE: the
// label goes back (to the status central.UndoRestores gives for the
// redemption's flags and the close of its day) only while the redemption of record is the one the
// undo names, made at the desk that sends it, and no other desk redeemed
// the label too (a conflict: two parcels went out, and which redemption to
// take back is not one desk's call). Otherwise it is refused, with the
// redemption of record in the answer so the desk puts the label back to
// used. An undo by a supervisor the staff list had removed by the undo's
// time is refused, with the note that flags it
// (central.UndoByRemovedStaff), and so is one past its desk's undo window
// by the server's clock (central.UndoTooLate). The feed carries an accepted undo to every
// desk, with the status the label went back to.
func (c *DB) undo(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, now int64) (protocol.Result, central.Note, error) {
	// The label under its lock (labellock.go), before the guard is read: a
	// desk's offline redemption of it being decided now has committed its
	// conflict, or waits for this undo and finds the label as it leaves it.
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
	if note, reason, refused := central.UndoByRemovedStaff(ev.Operator, removed); refused {
		r := protocol.Result{Outcome: protocol.OutcomeRejected, Reason: reason, Status: cc.status}
		if cc.status == "used" {
			r.UsedAt, r.UsedStation, r.UsedOperator = cc.usedAt, cc.usedStation, cc.usedOperator
		}
		return r, note, nil
	}
	// The flags of the redemption it would take back (no row: none, and
	// the guarded UPDATE changes nothing). An event row's flags never
	// change once it is the redemption of record.
	// Closed: a close's expiry of this label was accepted before the
	// redemption reached the server (a redemption received first left the
	// label used, and the close's expiry of it was not made).
	var red central.Redemption
	var closed bool
	err = tx.queryRow(ctx, `SELECT r.flags, r.at, r.decided_at, r.offline, EXISTS (SELECT 1 FROM events x WHERE x.code = r.code AND x.kind = ? AND x.outcome = ? AND x.received_at <= r.received_at)
		FROM events r WHERE r.event_id = ? AND r.kind = 'redeem'`, protocol.KindExpire, protocol.OutcomeExpired, ev.Undoes).Scan(&red.Flags, &red.At, &red.DecidedAt, &red.Offline, &closed)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return protocol.Result{}, central.Note{}, err
	case cc.status == "used" && cc.usedEvent == ev.Undoes && cc.usedStation == st.Name:
		// The undo would take the label back: within its desk's window
		// by the server's clock only.
		if reason := central.UndoTooLate(ev, red, now); reason != "" {
			return protocol.Result{Outcome: protocol.OutcomeRejected, Reason: reason, Status: cc.status,
				UsedAt: cc.usedAt, UsedStation: cc.usedStation, UsedOperator: cc.usedOperator}, central.Note{}, nil
		}
	}
	status := central.UndoRestores(red.Flags, closed)
	var disabledReason string
	err = tx.queryRow(ctx, `UPDATE codes SET used_at = 0, used_station = '', used_operator = '', used_event = '', status = ?
		WHERE code = ? AND status = 'used' AND used_event = ? AND used_station = ?
		AND NOT EXISTS (SELECT 1 FROM conflicts k WHERE k.code = codes.code OR k.second_code = codes.code)
		RETURNING disabled_reason`, string(status), ev.Code, ev.Undoes, st.Name).Scan(&disabledReason)
	if err == nil {
		if status != app.StatusDisabled {
			disabledReason = ""
		}
		data, _ := json.Marshal(map[string]any{"at": ev.At, "operator": ev.Operator, "event_id": ev.EventID, "undoes": ev.Undoes, "reason": ev.Reason,
			"status": status, "disabled_reason": disabledReason})
		return protocol.Result{Outcome: protocol.OutcomeUndone, Status: string(status)}, central.Note{}, c.addChanges(ctx, tx, change{protocol.KindUndo, ev.Code, st.Name, string(data)})
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return protocol.Result{}, central.Note{}, err
	}
	// A redemption of this desk the server recorded as handed back before
	// the label's record was made (redeem: TakenBack): the undo takes back
	// that redemption alone, and the label stays as it is.
	if cc.usedEvent != ev.Undoes {
		var n int
		if err := tx.queryRow(ctx, `SELECT count(*) FROM events r WHERE r.event_id = ? AND r.kind = 'redeem' AND r.station = ? AND r.code = ? AND r.outcome = 'redeemed'
			AND NOT EXISTS (SELECT 1 FROM conflicts k WHERE k.first_event = r.event_id OR k.second_event = r.event_id)`, ev.Undoes, st.Name, ev.Code).Scan(&n); err != nil {
			return protocol.Result{}, central.Note{}, err
		}
		if n == 1 {
			r := protocol.Result{Outcome: protocol.OutcomeUndone, Status: cc.status}
			if cc.status == "used" {
				r.UsedAt, r.UsedStation, r.UsedOperator = cc.usedAt, cc.usedStation, cc.usedOperator
			}
			return r, central.Note{}, nil
		}
	}
	// Refused: the label is as cc says (it is held).
	refuse := func(reason string) (protocol.Result, central.Note, error) {
		r := protocol.Result{Outcome: protocol.OutcomeRejected, Reason: reason, Status: cc.status}
		if cc.status == "used" {
			r.UsedAt, r.UsedStation, r.UsedOperator = cc.usedAt, cc.usedStation, cc.usedOperator
		}
		return r, central.Note{}, nil
	}
	switch {
	case cc.status != "used":
		return refuse("the label is " + cc.status + " at the server, not used: there is no redemption to undo")
	case cc.usedStation != st.Name:
		return refuse("the redemption of record is " + cc.usedStation + "'s (" + app.FormatTime(cc.usedAt) + ", " + cc.usedOperator + "): only that desk can undo it")
	case cc.usedEvent != ev.Undoes:
		return refuse("the redemption of record is another scan of this desk (" + app.FormatTime(cc.usedAt) + "), not the one undone")
	}
	return refuse("the label was redeemed at two desks (a conflict): a supervisor settles it, an undo cannot")
}
