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
	// The label under its lock (labellock.go): until this transaction ends
	// nothing else decides about it, so what the guarded UPDATE finds is
	// what cc says, and the answer is what this transaction records.
	cc, err := c.lockLabel(ctx, tx, ev.Code)
	if errors.Is(err, sql.ErrNoRows) {
		return protocol.Result{Outcome: protocol.OutcomeUnknown, Reason: "the server has no such code: upload the batch first"}, central.Note{}, now, nil
	}
	if err != nil {
		return protocol.Result{}, central.Note{}, now, err
	}
	var m redeemMark
	if ev.Offline {
		m, err = c.markUsedOffline(ctx, tx, st, ev, cc, now)
	} else {
		m, err = c.markUsedOnline(ctx, tx, st, ev, cc, now)
	}
	switch {
	case err != nil:
		return protocol.Result{}, m.note, m.when, err
	case m.refusal != nil:
		return *m.refusal, m.note, m.when, nil
	case m.used:
		r, note, err := c.redeemed(ctx, tx, st, ev, cc, m, now)
		return r, note, m.when, err
	}
	r, note, err := c.redeemRefused(ctx, tx, st, ev, cc, m, now)
	return r, note, m.when, err
}

// redeemMark is what the guarded UPDATE of a redemption did: the time the
// redemption is decided at, the server's note on it, and whether it marked
// the label used (with the label's entitlement, as the UPDATE left it:
// replace.go), or the refusal made before it.
type redeemMark struct {
	when    int64
	note    central.Note
	used    bool
	ent     string
	refusal *protocol.Result
}

const markUsed = `UPDATE codes SET status = 'used', used_at = ?, used_station = ?, used_operator = ?, used_event = ? `

// markUsedOffline marks the label used by an offline redemption, unless
// it is used already: at the desk's time as the server judges it (which
// needs the label's issue time), its operator by the staff list then.
func (c *DB) markUsedOffline(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, cc centralCode, now int64) (redeemMark, error) {
	var m redeemMark
	m.when, m.note = central.DecideTime(ev, central.IssuedNotBefore(ev.Code, cc.createdAt, time.Local), now)
	removed, err := c.staffRemovedAt(ctx, tx, ev.Operator, m.when)
	if err != nil {
		return m, err
	}
	m.note = central.ByRemovedStaff(m.note, ev.Operator, removed)
	err = tx.queryRow(ctx, markUsed+`WHERE code = ? AND status <> 'used' RETURNING entitlement`, m.when, st.Name, ev.Operator, ev.EventID, ev.Code).Scan(&m.ent)
	return m.updated(err)
}

// markUsedOnline marks the label used by an online redemption, only if it
// is unused and not expired now. Its operator is checked by the staff list
// now: someone removed redeems nothing online (the parcel has not gone
// yet).
func (c *DB) markUsedOnline(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, cc centralCode, now int64) (redeemMark, error) {
	m := redeemMark{when: now}
	removed, err := c.staffRemovedAt(ctx, tx, ev.Operator, m.when)
	if err != nil {
		return m, err
	}
	if note, why, refused := central.RedeemOnlineByRemovedStaff(ev.Operator, removed); refused {
		m.note = note
		m.refusal = &protocol.Result{Outcome: protocol.OutcomeRejected, Reason: why, Status: cc.status}
		return m, nil
	}
	err = tx.queryRow(ctx, markUsed+`WHERE code = ? AND status = 'unused' AND (expire_at = 0 OR expire_at > ?) RETURNING entitlement`, m.when, st.Name, ev.Operator, ev.EventID, ev.Code, m.when).Scan(&m.ent)
	return m.updated(err)
}

// updated records the guarded UPDATE's answer: no row is a refusal by
// the guard, not an error.
func (m redeemMark) updated(err error) (redeemMark, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return m, nil
	}
	m.used = err == nil
	return m, err
}

// redeemed completes a redemption the UPDATE marked: another label of its
// entitlement used, the server's note on an offline one, the feed's
// change.
func (c *DB) redeemed(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, cc centralCode, m redeemMark, now int64) (protocol.Result, central.Note, error) {
	when, note := m.when, m.note
	// A label of an entitlement: was another of its labels used?
	used, double, err := c.entitlementUsed(ctx, tx, ev.Code, m.ent)
	if err != nil {
		return protocol.Result{}, note, err
	}
	if double && !ev.Offline {
		r, err := c.refuseEntitlementUsed(ctx, tx, ev, used)
		return r, note, err
	}
	if ev.Offline {
		label := central.Label{Status: cc.status, DisabledReason: cc.reason, ExpireAt: cc.expireAt}
		if cc.status == string(app.StatusExpired) {
			if label.ClosedAt, err = c.closedAt(ctx, tx, ev.Code); err != nil {
				return protocol.Result{}, note, err
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
		return protocol.Result{}, note, err
	}
	if double {
		r, err = c.entitlementConflict(ctx, tx, st, ev, used, when, note, now)
	}
	return r, note, err
}

// redeemRefused answers a redemption the guard refused, with the server's
// note on it. The label is as cc says (it is held), and each answer below
// is the guard's reason. No other state can have refused it: rather than
// answer what it did not record, the event fails and is sent again.
func (c *DB) redeemRefused(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, cc centralCode, m redeemMark, now int64) (protocol.Result, central.Note, error) {
	when, note := m.when, m.note
	if cc.status == string(app.StatusUsed) && ev.Offline && !ev.TakenBack && cc.usedStation == st.Name && cc.usedEvent != ev.EventID {
		if r, ok, err := c.renumbered(ctx, tx, st, ev, cc); err != nil || ok {
			return r, note, err
		}
	}
	handedBack, err := c.handedBack(ctx, tx, st, ev, cc, when)
	if err != nil {
		return protocol.Result{}, note, err
	}
	switch {
	case handedBack:
		// Handed back (its undo follows in this request) before the record
		// was made: no second use of the label, so no conflict; the label
		// stays with its record,
		// and the undo is accepted as taking back this redemption alone.
		// The parcel did go out: one past the label's expiry is flagged.
		note = central.TakenOffline(note, central.Label{ExpireAt: cc.expireAt}, when)
		reason := "handed back: undone at this desk, and the label was used at " + cc.usedStation + " since"
		if note.Text != "" {
			reason = note.Text + "; " + reason
		}
		return protocol.Result{Outcome: protocol.OutcomeRedeemed, UsedAt: cc.usedAt, UsedStation: cc.usedStation, UsedOperator: cc.usedOperator,
			Reason: reason, Status: cc.status}, note, nil
	case cc.status == string(app.StatusUsed) && ev.Offline:
		r, err := c.conflict(ctx, tx, st, ev, cc, when, note, now)
		return r, note, err
	case ev.Offline:
	case cc.status == string(app.StatusUsed):
		return protocol.Result{Outcome: protocol.OutcomeAlreadyUsed, UsedAt: cc.usedAt, UsedStation: cc.usedStation, UsedOperator: cc.usedOperator, Status: cc.status}, note, nil
	case cc.status == string(app.StatusDisabled):
		return protocol.Result{Outcome: protocol.OutcomeDisabled, Reason: cc.reason, Status: cc.status}, note, nil
	case cc.status == string(app.StatusExpired) || (cc.status == string(app.StatusUnused) && cc.expireAt != 0 && cc.expireAt <= when):
		return protocol.Result{Outcome: protocol.OutcomeExpired, Reason: expiredReason(cc), Status: cc.status}, note, nil
	}
	return protocol.Result{}, note, fmt.Errorf("redeem %s: the label is %s under its lock, yet the guarded update changed nothing", ev.Code, cc.status)
}

// handedBack reports whether an offline redemption, used since at another
// desk, was taken back (its undo follows in this request) before that
// use: only while its undo is not refused already. An undo that reached
// the server before the redemption it takes back (sent in an earlier
// request) and was refused leaves the parcel out, a second use.
func (c *DB) handedBack(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, cc centralCode, when int64) (bool, error) {
	if cc.status != string(app.StatusUsed) || !ev.Offline || !ev.TakenBack || cc.usedAt <= when {
		return false, nil
	}
	var refused int
	if err := tx.queryRow(ctx, `SELECT count(*) FROM events WHERE kind = 'undo' AND undoes = ? AND station = ? AND outcome = 'rejected'`, ev.EventID, st.Name).Scan(&refused); err != nil {
		return false, err
	}
	return refused == 0, nil
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
// record; nor is one that follows an undo of the record by the same desk
// (the undo names the record's id: the desk took that redemption back and
// handed the parcel over again).
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
	// The desk undid the record under its own id (the server refused the
	// undo or has not applied it): a redemption of the label after that is
	// a new handover at the desk, whatever its time, not the record
	// renumbered. A renumbered desk's undo names the new id.
	var undone int
	if err := tx.queryRow(ctx, `SELECT count(*) FROM events WHERE kind = 'undo' AND undoes = ? AND station = ?`, old, st.Name).Scan(&undone); err != nil {
		return protocol.Result{}, false, err
	}
	if undone > 0 {
		return protocol.Result{}, false, nil
	}
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
