package serverdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/protocol"
)

// redeem is the guarded UPDATE. Online, the server's clock decides and
// only an unused, unexpired label is redeemed. Offline, the desk already
// handed the parcel over: the label becomes used whatever the server
// thought of it (a disabled or expired one is flagged), at the desk's time
// if that is plausible. A label already used is a conflict: both facts are
// kept, and the earlier plausible redemption stays the one of record. The
// rules are central's (DecideTime, TakenOffline, RecordTakesOver); it
// returns the event's note and the time it was decided at.
func (c *DB) redeem(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, now int64) (protocol.Result, central.Note, int64, error) {
	when, note := now, central.Note{}
	// The label under its lock (labellock.go): until this transaction ends
	// nothing else decides about it, so what the guarded UPDATE finds is
	// what cc says, and the answer is what this transaction records.
	cc, err := c.lockLabel(ctx, tx, ev.Code)
	if errors.Is(err, sql.ErrNoRows) {
		return protocol.Result{Outcome: protocol.OutcomeUnknown, Reason: "the server has no such code: upload the batch first"}, note, now, nil
	}
	if err != nil {
		return protocol.Result{}, note, now, err
	}
	set := `UPDATE codes SET status = 'used', used_at = ?, used_station = ?, used_operator = ?, used_event = ? `
	var ent string // the label's entitlement, as the UPDATE left it (replace.go)
	if ev.Offline {
		// The desk's time needs the label's issue time to be judged.
		when, note = central.DecideTime(ev, central.IssuedNotBefore(ev.Code, cc.createdAt, time.Local), now)
		// Its operator, by the server's staff list at that time.
		var removed int64
		if removed, err = c.staffRemovedAt(ctx, tx, ev.Operator, when); err != nil {
			return protocol.Result{}, note, when, err
		}
		note = central.ByRemovedStaff(note, ev.Operator, removed)
		err = tx.queryRow(ctx, set+`WHERE code = ? AND status <> 'used' RETURNING entitlement`, when, st.Name, ev.Operator, ev.EventID, ev.Code).Scan(&ent)
	} else {
		// Its operator, by the server's staff list now: someone removed
		// redeems nothing online (the parcel has not gone yet).
		var removed int64
		if removed, err = c.staffRemovedAt(ctx, tx, ev.Operator, when); err != nil {
			return protocol.Result{}, note, when, err
		}
		if note, why, refused := central.RedeemOnlineByRemovedStaff(ev.Operator, removed); refused {
			return protocol.Result{Outcome: protocol.OutcomeRejected, Reason: why, Status: cc.status}, note, when, nil
		}
		err = tx.queryRow(ctx, set+`WHERE code = ? AND status = 'unused' AND (expire_at = 0 OR expire_at > ?) RETURNING entitlement`, when, st.Name, ev.Operator, ev.EventID, ev.Code, when).Scan(&ent)
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return protocol.Result{}, note, when, err
	}
	if err == nil {
		// A label of an entitlement: was another of its labels used?
		used, double, err := c.entitlementUsed(ctx, tx, ev.Code, ent)
		if err != nil {
			return protocol.Result{}, note, when, err
		}
		if double && !ev.Offline {
			r, err := c.refuseEntitlementUsed(ctx, tx, ev, used)
			return r, note, when, err
		}
		if ev.Offline {
			label := central.Label{Status: cc.status, DisabledReason: cc.reason, ExpireAt: cc.expireAt}
			if cc.status == string(app.StatusExpired) {
				if label.ClosedAt, err = c.closedAt(ctx, tx, ev.Code); err != nil {
					return protocol.Result{}, note, when, err
				}
			}
			note = central.TakenOffline(note, label, when)
		}
		r := protocol.Result{Outcome: protocol.OutcomeRedeemed, UsedAt: when, UsedStation: st.Name, UsedOperator: ev.Operator, Reason: note.Text, Status: string(app.StatusUsed)}
		fields := map[string]any{"at": when, "operator": ev.Operator, "event_id": ev.EventID, "status": app.StatusUsed}
		if note.Text != "" {
			// Every desk keeps the server's note in the label's history.
			fields["flag"] = note.Text
		}
		data, _ := json.Marshal(fields)
		if err := c.addChanges(ctx, tx, change{protocol.KindRedeem, ev.Code, st.Name, string(data)}); err != nil {
			return protocol.Result{}, note, when, err
		}
		if double {
			r, err = c.entitlementConflict(ctx, tx, st, ev, used, when, note, now)
		}
		return r, note, when, err
	}
	// Refused: the label is as cc says (it is held), and each answer below
	// is the guard's reason. No other state can have refused it: rather
	// than answer what it did not record, the event fails and is sent again.
	if cc.status == string(app.StatusUsed) && ev.Offline && !ev.TakenBack && cc.usedStation == st.Name && cc.usedEvent != ev.EventID {
		if r, ok, err := c.renumbered(ctx, tx, st, ev, cc); err != nil || ok {
			return r, note, when, err
		}
	}
	handedBack := false
	if cc.status == string(app.StatusUsed) && ev.Offline && ev.TakenBack && cc.usedAt > when {
		// Only while its undo is not refused already: an undo that reached
		// the server before the redemption it takes back (sent in an earlier
		// request) and was refused leaves the parcel out, a second use.
		var refused int
		if err := tx.queryRow(ctx, `SELECT count(*) FROM events WHERE kind = 'undo' AND undoes = ? AND station = ? AND outcome = 'rejected'`, ev.EventID, st.Name).Scan(&refused); err != nil {
			return protocol.Result{}, note, when, err
		}
		handedBack = refused == 0
	}
	switch {
	case handedBack:
		// Handed back (its undo follows in this request) before the record
		// was made: no second use of the label, so no conflict; the label
		// stays with its record,
		// and the undo is accepted as taking back this redemption alone.
		return protocol.Result{Outcome: protocol.OutcomeRedeemed, UsedAt: cc.usedAt, UsedStation: cc.usedStation, UsedOperator: cc.usedOperator,
			Reason: "handed back: undone at this desk, and the label was used at " + cc.usedStation + " since", Status: cc.status}, note, when, nil
	case cc.status == string(app.StatusUsed) && ev.Offline:
		r, err := c.conflict(ctx, tx, st, ev, cc, when, note, now)
		return r, note, when, err
	case ev.Offline:
	case cc.status == string(app.StatusUsed):
		return protocol.Result{Outcome: protocol.OutcomeAlreadyUsed, UsedAt: cc.usedAt, UsedStation: cc.usedStation, UsedOperator: cc.usedOperator, Status: cc.status}, note, when, nil
	case cc.status == string(app.StatusDisabled):
		return protocol.Result{Outcome: protocol.OutcomeDisabled, Reason: cc.reason, Status: cc.status}, note, when, nil
	case cc.status == string(app.StatusExpired) || (cc.status == string(app.StatusUnused) && cc.expireAt != 0 && cc.expireAt <= when):
		return protocol.Result{Outcome: protocol.OutcomeExpired, Reason: expiredReason(cc), Status: cc.status}, note, when, nil
	}
	return protocol.Result{}, note, when, fmt.Errorf("redeem %s: the label is %s under its lock, yet the guarded update changed nothing", ev.Code, cc.status)
}

// renumbered recognises, in a redemption ev of a label whose record is
// another event of the same desk, that same redemption under a new id:
// the same label, operator and desk time. A desk gives an event a new id
// when a restored server answers that its id is another desk's
// (ServerRefusal.IDTaken); restored once more, to a backup that holds the
// event under its first id, the server meets it again under the new one.
// It is one handover, not a conflict: the record follows the desk's new id
// (the event row, the label's used_event, what names it), and the answer
// is the one recorded, as a duplicate (decide records nothing more, so
// the dashboard counts it once). A redemption whose undo comes with it
// (TakenBack) is another one, taken back: it is never renumbered onto the
// record.
func (c *DB) renumbered(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, cc centralCode) (protocol.Result, bool, error) {
	prev, err := c.readEvent(ctx, tx, cc.usedEvent)
	if errors.Is(err, sql.ErrNoRows) {
		return protocol.Result{}, false, nil
	}
	if err != nil {
		return protocol.Result{}, false, err
	}
	if prev.station != st.Name || prev.ev.Kind != protocol.KindRedeem || prev.ev.Code != ev.Code || prev.ev.Operator != ev.Operator || prev.ev.At != ev.At {
		return protocol.Result{}, false, nil
	}
	old := cc.usedEvent
	for _, q := range []string{
		`UPDATE events SET event_id = ? WHERE event_id = ?`,
		`UPDATE codes SET used_event = ? WHERE used_event = ?`,
		`UPDATE events SET undoes = ? WHERE undoes = ?`,
		`UPDATE conflicts SET first_event = ? WHERE first_event = ?`,
	} {
		if _, err := tx.exec(ctx, q, ev.EventID, old); err != nil {
			return protocol.Result{}, false, err
		}
	}
	var r protocol.Result
	json.Unmarshal([]byte(prev.detail), &r)
	r.EventID, r.Duplicate, r.Write, r.Status = ev.EventID, true, prev.write, cc.status
	return r, true, nil
}
