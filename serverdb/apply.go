package serverdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"qrdesk/central"
	"qrdesk/protocol"
)

// Apply is the heart of the server: it decides a desk's events, in the
// order the desk sent them, and answers each with its outcome. Every
// redemption, undo, disable, enable, expiry, replacement and staff change
// of every desk passes here (the one-statement online redemption is a
// shortcut of the same decision, onlineredeem.go).
//
// What it decides, for each event, in this order:
//
//  1. The request as a whole: a redemption whose undo comes later in the
//     same request is one fact, the parcel went out and came back
//     (central.MarkTakenBack); it is decided knowing that.
//  2. The station: revoked, or its token renewed since the request's
//     station was looked up (a short-lived cache), it changes nothing:
//     ErrRevoked (stationActive). Except what it decided before: a
//     request all of whose events the station had decided while its
//     token was valid is answered with those decisions, as duplicates
//     (answerDecided): telling them again grants nothing new.
//  3. The event's identity: an id decided before with the same content
//     (central.SameEvent) is a duplicate, answered with its first result,
//     Duplicate set, its first write number and the label's status now;
//     with other content it is refused, *central.EventReused (Taken when
//     another station's event holds the id). One exception: a desk that
//     asked online, was told no, gave up waiting and redeemed alone sends
//     its offline redemption under the same id, and that is decided anew
//     as the offline fact it is (applyInTx).
//  4. The event by its kind (decide): redeem (redeem.go), disable and
//     enable (disable.go), undo (undo.go), expire (expire.go), replace
//     (replace.go), staff (staff.go); a kind it does not know is
//     rejected. A decision about a label holds the label's row first
//     (lockLabel, PostgreSQL), then changes it by a guarded UPDATE and
//     writes the feed's changes (addChanges); the rules themselves are central's and entitlement's
//     functions (DecideTime, TakenOffline, RecordTakesOver, DecideReplace
//     …), the SQL only stores what they decide.
//  5. The record: the event row with its outcome, the answer as sent
//     (detail), the server's note (flags, central/flags.go), the time it
//     was decided at, and the station's next write number (restore
//     detection, nextWrite). A label the server does not hold yet
//     (unknown: its batch has not arrived) is not recorded: the desk
//     sends the event again later.
//
// What it guarantees: an event's decision, its feed changes and its row
// commit together or not at all, and the answer is given only once that
// commit is durable; the same event sent again is answered the same and
// changes nothing twice; a label's decisions are serialized (the label
// lock on PostgreSQL, one writer at a time on SQLite), so two desks never
// both get "redeemed" online for one label, and two offline uses become a
// conflict with one redemption of record. Each event is decided on its
// own: on SQLite events share group commits, each in its own savepoint
// (groupcommit.go), on PostgreSQL each has its own transaction
// (applyOne). When an event fails (the database, not a rule), the events
// after it in the request are not decided and Apply returns the answers
// before it with the error: the desk sends the rest again.
func (c *DB) Apply(ctx context.Context, st central.Station, evs []protocol.Event, at int64) ([]protocol.Result, error) {
	// A redemption and its undo sent together are one fact (the parcel
	// went out and came back): the redemption is decided knowing it.
	evs = central.MarkTakenBack(evs)
	out, err := c.applyMarked(ctx, st, evs, at)
	if errors.Is(err, central.ErrRevoked) {
		// Decided while the token was valid: told again (decided.go).
		again, ok, aerr := c.answerDecided(ctx, st, evs)
		switch {
		case aerr != nil:
			return out, aerr
		case ok:
			return again, nil
		}
	}
	return out, err
}

// applyMarked is Apply of events MarkTakenBack has seen.
func (c *DB) applyMarked(ctx context.Context, st central.Station, evs []protocol.Event, at int64) ([]protocol.Result, error) {
	if !c.e.postgres {
		return c.groupApplyAll(ctx, st, evs, at)
	}
	out := make([]protocol.Result, 0, len(evs))
	checked := false
	for _, ev := range evs {
		if ev.Kind == protocol.KindRedeem && !ev.Offline {
			r, done, err := c.redeemOnlineOneStatement(ctx, st, ev, at)
			if err != nil {
				return out, err
			}
			if done {
				out = append(out, r)
				continue
			}
			checked = true // the statement found the station active
		}
		if !checked {
			if err := stationActive(ctx, c.e.queryRow, st); err != nil {
				return out, err
			}
			checked = true
		}
		r, err := c.applyOne(ctx, st, ev, at, false)
		if isUniqueAny(err) || errors.Is(err, errDecidedMeanwhile) {
			// The event id is known (sent before, or a retry racing the
			// original): decide again knowing it.
			r, err = c.applyKnown(ctx, st, ev, at)
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// applyOne applies one event in its own transaction (PostgreSQL; SQLite
// goes through the group committer). The event id is first assumed new
// (known says otherwise): a known id makes the event row's insert fail at
// the end, the transaction is rolled back whole, and Apply decides again
// with known set. Two round trips fewer for every event.
func (c *DB) applyOne(ctx context.Context, st central.Station, ev protocol.Event, now int64, known bool) (protocol.Result, error) {
	tx, err := c.e.begin(ctx)
	if err != nil {
		return protocol.Result{}, err
	}
	defer tx.done()
	var r protocol.Result
	if known {
		r, err = c.applyInTx(ctx, tx, st, ev, now)
	} else {
		r, err = c.decide(ctx, tx, st, ev, now, false)
		if err == nil && r.Outcome == protocol.OutcomeUnknown {
			// Not recorded, so no insert checked the id: check it here.
			r, err = c.applyInTx(ctx, tx, st, ev, now)
		}
	}
	if err != nil {
		return protocol.Result{}, err
	}
	return r, tx.commit()
}

// errDecidedMeanwhile: the online attempt's row an offline event was to
// take over was taken over by another copy of the event, committed after
// this transaction read it (PostgreSQL). The transaction is rolled back
// and the event decided again, knowing its id: a duplicate.
var errDecidedMeanwhile = errors.New("the event was decided meanwhile by a copy of it")

// applyKnown is applyOne of an event whose id the server holds. A copy of
// it racing past the online attempt's row (errDecidedMeanwhile) is decided
// once more: the other copy has decided it, so this one is its duplicate.
func (c *DB) applyKnown(ctx context.Context, st central.Station, ev protocol.Event, now int64) (protocol.Result, error) {
	r, err := c.applyOne(ctx, st, ev, now, true)
	if errors.Is(err, errDecidedMeanwhile) {
		r, err = c.applyOne(ctx, st, ev, now, true)
	}
	return r, err
}

// storedEvent is an event row.
type storedEvent struct {
	ev      protocol.Event
	station string
	outcome protocol.Outcome
	detail  string
	write   int64 // the station's write number given to it
}

func (c *DB) readEvent(ctx context.Context, tx *etx, id string) (storedEvent, error) {
	var s storedEvent
	err := tx.queryRow(ctx, `SELECT event_id, station, kind, code, operator, at, offline, reason, outcome, detail, undoes, write_no FROM events WHERE event_id = ?`, id).
		Scan(&s.ev.EventID, &s.station, &s.ev.Kind, &s.ev.Code, &s.ev.Operator, &s.ev.At, &s.ev.Offline, &s.ev.Reason, &s.outcome, &s.detail, &s.ev.Undoes, &s.write)
	return s, err
}

// applyInTx decides one event inside tx: the event's identity, the guarded
// change, the event row.
func (c *DB) applyInTx(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, now int64) (protocol.Result, error) {
	prev, err := c.readEvent(ctx, tx, ev.EventID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return protocol.Result{}, err
	default:
		if same, what := central.SameEvent(prev.ev, prev.station, ev, st.Name); !same {
			return protocol.Result{}, &central.EventReused{EventID: ev.EventID, What: what, Taken: prev.station != st.Name}
		}
		if ev.Kind == protocol.KindRedeem && ev.Offline && !prev.ev.Offline && prev.outcome != protocol.OutcomeRedeemed {
			// The desk asked online, gave up waiting, and redeemed alone; the
			// server had answered no. The desk's redemption is a fact:
			// decide it as the offline event it is (a conflict when the
			// label was used elsewhere), never as a duplicate.
			return c.decide(ctx, tx, st, ev, now, true)
		}
		return c.duplicateAnswer(ctx, tx, prev)
	}
	return c.decide(ctx, tx, st, ev, now, false)
}

// duplicateAnswer is the answer to an event decided before: its first
// result, Duplicate set, its first write number and the label's status
// now, not when the event was first decided: a desk sets its copy to it
// (its event waited in its outbox, so it held back the changes since).
func (c *DB) duplicateAnswer(ctx context.Context, tx *etx, prev storedEvent) (protocol.Result, error) {
	var r protocol.Result
	json.Unmarshal([]byte(prev.detail), &r)
	r.Duplicate, r.Write = true, prev.write
	if cc, err := c.readCode(ctx, tx, prev.ev.Code); err == nil {
		r.Status = cc.status
	} else if !errors.Is(err, sql.ErrNoRows) {
		return protocol.Result{}, err
	}
	return r, nil
}

// decide applies a new event and records it (replace: over the row of the
// online attempt under the same id).
func (c *DB) decide(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, now int64, replace bool) (protocol.Result, error) {
	var r protocol.Result
	var note central.Note
	decidedAt := now
	var err error
	tx.now = now
	// Whether this decision writes a change: a transaction decides a
	// request's events together on SQLite (the group committer), and a
	// change of an earlier one must not stand in for this one's refresh.
	tx.fed = false
	switch ev.Kind {
	case protocol.KindRedeem:
		r, note, decidedAt, err = c.redeem(ctx, tx, st, ev, now)
	case protocol.KindDisable, protocol.KindEnable:
		r, note, err = c.setDisabled(ctx, tx, st, ev, now)
	case protocol.KindUndo:
		r, note, err = c.undo(ctx, tx, st, ev, now)
	case protocol.KindExpire:
		r, note, err = c.expire(ctx, tx, st, ev, now)
		// Filed at the close's time, as the removed-staff check judged it:
		// a removal that arrives later flags it by that time.
		decidedAt, _ = central.DecideTime(ev, 0, now)
	case protocol.KindReplace:
		r, note, err = c.replaceLabel(ctx, tx, st, ev, now)
	case protocol.KindStaff:
		r, err = c.staffEvent(ctx, tx, st, ev)
	default:
		r = protocol.Result{Outcome: protocol.OutcomeRejected, Reason: "unknown event kind " + string(ev.Kind)}
	}
	if err != nil {
		return protocol.Result{}, err
	}
	r.EventID = ev.EventID
	if ev.Kind == protocol.KindRedeem && r.Duplicate {
		return r, nil // recorded already, under the desk's first id (renumbered)
	}
	if r.Outcome == protocol.OutcomeUnknown {
		// Not recorded: the desk sends it again once the desk that issued
		// the code has uploaded it.
		return r, nil
	}
	detail, _ := json.Marshal(r)
	// A write number of its own, also for the online attempt's row taken
	// over: a server restored from a backup that holds the attempt but not
	// this decision has given fewer numbers than the desk holds.
	if r.Write, err = nextWrite(ctx, tx, st); err != nil {
		return protocol.Result{}, err
	}
	if replace {
		// Only over the online attempt's row as applyInTx read it: two
		// copies of the offline event (a duplicated request) both read
		// that row on PostgreSQL before either committed, and the second,
		// let through after the first took the label, would write its
		// decision and feed changes a second time (a conflict delivered
		// twice under one webhook id). It finds the row decided and is
		// rolled back whole (errDecidedMeanwhile).
		res, err := tx.exec(ctx, `UPDATE events SET offline = ?, outcome = ?, detail = ?, flag = ?, flags = ?, decided_at = ?, received_at = ?, write_no = ? WHERE event_id = ? AND offline = ? AND outcome <> ?`,
			ev.Offline, r.Outcome, string(detail), note.Text, note.Flags, decidedAt, now, r.Write, ev.EventID, false, protocol.OutcomeRedeemed)
		if err != nil {
			return r, err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return protocol.Result{}, errDecidedMeanwhile
		}
		return r, nil
	}
	_, err = tx.exec(ctx, `INSERT INTO events (event_id, station, kind, code, operator, at, received_at, offline, outcome, detail, reason, flag, flags, decided_at, undoes, write_no)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, ev.EventID, st.Name, ev.Kind, ev.Code, ev.Operator, ev.At, now, ev.Offline, r.Outcome, string(detail), ev.Reason, note.Text, note.Flags, decidedAt, ev.Undoes, r.Write)
	if err != nil || tx.fed || ev.Code == "" {
		return r, err
	}
	return r, c.refreshHolderSite(ctx, tx, st, ev.Code)
}

// nextWrite gives the station's next write number, in the transaction of
// the write it numbers (restore detection: see stations.writes).
func nextWrite(ctx context.Context, tx *etx, st central.Station) (int64, error) {
	var n int64
	err := tx.queryRow(ctx, `UPDATE stations SET writes = writes + 1 WHERE id = ? RETURNING writes`, st.ID).Scan(&n)
	return n, err
}
