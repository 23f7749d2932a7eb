package serverdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/entitlement"
	"qrdesk/protocol"
)

// Entitlements (package entitlement states the rules): a replacement
// links its labels by the code of their root label (codes.entitlement).
// Every transaction that makes a label of an entitlement used, valid again
// or replaced holds the root label's row (labellock.go) before it reads
// the other labels, so of two redemptions of one entitlement at once the
// second sees the first. SQLite's writers go one at a time. A label never
// replaced has no entitlement and takes none of this.

// siblings reads the labels of the entitlement ent but the codes except.
func (c *DB) siblings(ctx context.Context, tx *etx, ent string, except ...string) ([]entitlement.Sibling, error) {
	rows, err := tx.query(ctx, `SELECT code, status, used_at, used_station, used_operator, used_event, label_date, disabled_reason FROM codes
		WHERE entitlement = ? AND entitlement <> '' ORDER BY id`, ent)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []entitlement.Sibling
next:
	for rows.Next() {
		var s entitlement.Sibling
		if err := rows.Scan(&s.Code, &s.Status, &s.UsedAt, &s.UsedStation, &s.UsedOperator, &s.UsedEvent, &s.LabelDate, &s.Reason); err != nil {
			return nil, err
		}
		for _, e := range except {
			if s.Code == e {
				continue next
			}
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// entitlementUsed reports, for code just made used, another label of its
// entitlement ent that was used (entitlement.UsedSibling), holding the root's
// row first.
func (c *DB) entitlementUsed(ctx context.Context, tx *etx, code, ent string) (entitlement.Sibling, bool, error) {
	if ent == "" {
		return entitlement.Sibling{}, false, nil
	}
	if err := c.lockEntitlement(ctx, tx, ent); err != nil {
		return entitlement.Sibling{}, false, err
	}
	others, err := c.siblings(ctx, tx, ent, code)
	if err != nil {
		return entitlement.Sibling{}, false, err
	}
	used, ok := entitlement.UsedSibling(others)
	return used, ok, nil
}

// refuseEntitlementUsed takes back an online redemption the guarded UPDATE
// made of a label whose entitlement was used (nothing of it was written
// but the row): already used, naming the other label.
func (c *DB) refuseEntitlementUsed(ctx context.Context, tx *etx, ev protocol.Event, used entitlement.Sibling) (protocol.Result, error) {
	if _, err := tx.exec(ctx, `UPDATE codes SET status = 'unused', used_at = 0, used_station = '', used_operator = '', used_event = '' WHERE code = ?`, ev.Code); err != nil {
		return protocol.Result{}, err
	}
	return protocol.Result{Outcome: protocol.OutcomeAlreadyUsed, UsedAt: used.UsedAt, UsedStation: used.UsedStation, UsedOperator: used.UsedOperator, UsedCode: used.Code,
		Reason: entitlement.SiblingUsedReason(ev.Code, used), Status: string(app.StatusUnused)}, nil
}

// entitlementConflict records an offline redemption (the label is used
// now) of a label whose entitlement was used already: the conflict names
// both labels, the earlier use by a trusted clock first.
func (c *DB) entitlementConflict(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, used entitlement.Sibling, when int64, note central.Note, now int64) (protocol.Result, error) {
	k := protocol.Conflict{Code: used.Code, FirstEvent: used.UsedEvent, FirstStation: used.UsedStation, FirstOperator: used.UsedOperator, FirstAt: used.UsedAt,
		SecondCode: ev.Code, SecondEvent: ev.EventID, SecondStation: st.Name, SecondOperator: ev.Operator, SecondAt: when, Flag: note.Text}
	if central.RecordTakesOver(note, when, used.UsedAt) {
		k = protocol.Conflict{Code: ev.Code, FirstEvent: ev.EventID, FirstStation: st.Name, FirstOperator: ev.Operator, FirstAt: when,
			SecondCode: used.Code, SecondEvent: used.UsedEvent, SecondStation: used.UsedStation, SecondOperator: used.UsedOperator, SecondAt: used.UsedAt}
	}
	if err := c.addConflict(ctx, tx, st, k, now); err != nil {
		return protocol.Result{}, err
	}
	return protocol.Result{Outcome: protocol.OutcomeConflict, UsedAt: used.UsedAt, UsedStation: used.UsedStation, UsedOperator: used.UsedOperator, UsedCode: used.Code,
		Reason: entitlement.ConflictReason(used.Code, ev.Code), Status: string(app.StatusUsed)}, nil
}

// addConflict stores a conflict of one entitlement found deciding an event
// of st and puts it in the feed (a conflict already stored for the same
// second use is not stored again).
func (c *DB) addConflict(ctx context.Context, tx *etx, st central.Station, k protocol.Conflict, now int64) error {
	res, err := tx.exec(ctx, `INSERT INTO conflicts (code, first_event, first_station, first_operator, first_at, second_event, second_station, second_operator, second_at, detected_at, flag, second_code, first_site, second_site)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, `+deskSites+`) ON CONFLICT DO NOTHING`, k.Code, k.FirstEvent, k.FirstStation, k.FirstOperator, k.FirstAt,
		k.SecondEvent, k.SecondStation, k.SecondOperator, k.SecondAt, now, k.Flag, k.SecondCode, k.FirstStation, k.SecondStation)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	data, _ := json.Marshal(k)
	return c.addChanges(ctx, tx, change{protocol.KindConflict, k.Code, st.Name, string(data)})
}

// replaceLabel decides a replace event (entitlement.DecideReplace) in one
// transaction: the new label is stored if its batch has not arrived, both
// labels join the old one's entitlement, the old one is disabled ("replaced
// by NEW"), or the new one is void (disabled) when the old one was used
// meanwhile (a conflict naming both), another label of the entitlement
// is valid, or its supervisor had been removed from the staff list by
// then (central.ReplaceByRemovedStaff: refused, flagged). The feed's
// replace change carries both labels, the link and their resulting status.
func (c *DB) replaceLabel(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, now int64) (protocol.Result, central.Note, error) {
	in, err := central.ReplacementCode(st, ev)
	if err != nil {
		return protocol.Result{Outcome: protocol.OutcomeRejected, Reason: err.Error()}, central.Note{}, nil
	}
	// The old label under its lock, and its entitlement's root's
	// (labellock.go; a label never replaced is its own root).
	old, err := c.lockLabel(ctx, tx, ev.Code)
	if errors.Is(err, sql.ErrNoRows) {
		return protocol.Result{Outcome: protocol.OutcomeUnknown, Reason: "the server has no such code: upload the batch first"}, central.Note{}, nil
	}
	if err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	root := entitlement.Root(ev.Code, old.entitlement)
	removed, err := c.removedSupervisor(ctx, tx, ev, now)
	if err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	// The new label, if its batch has not arrived yet.
	var added string
	// The new label joins its entitlement's site (the old label's): the
	// desks that hold the old one get the new one. It takes the old one's
	// ref (a pickup order's number), as the replacing desk gives it: the
	// desk's copy of the old label may have none yet (kept from the
	// server's answer to an online scan, before the feed brought the
	// label), and then neither has its batch.
	var ref string
	if err := tx.queryRow(ctx, `SELECT ref FROM codes WHERE code = ?`, ev.Code).Scan(&ref); err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	err = tx.queryRow(ctx, `INSERT INTO codes (code, random, prefix, label_date, station_id, serial, issued_by, expire_at, created_at, entitlement, site, ref)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT site FROM codes WHERE code = ?), ?) ON CONFLICT DO NOTHING RETURNING code`,
		in.Code, in.Random, in.Prefix, in.LabelDate, nullIf(in.StationID == "", in.StationID), nullIf(in.StationID == "", in.Serial), st.Name, in.ExpireAt, in.CreatedAt, root, ev.Code, ref).Scan(&added)
	switch {
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return protocol.Result{}, central.Note{}, err
	case err == nil:
		if err := c.addChanges(ctx, tx, change{protocol.KindCode, in.Code, st.Name, codeData(in.ExpireAt, in.CreatedAt, ref, nil)}); err != nil {
			return protocol.Result{}, central.Note{}, err
		}
	}
	// The new label under its lock too (after the root's, labellock.go): a
	// desk redeeming it online meanwhile either came first (it is used
	// here) or waits and finds it as this replacement leaves it.
	nc, err := c.lockCode(ctx, tx, in.Code)
	if errors.Is(err, sql.ErrNoRows) {
		// Not added, and not there: another code holds its serial.
		return protocol.Result{Outcome: protocol.OutcomeRejected, Reason: fmt.Sprintf("new label %s repeats the serial of another code: two desks share station letter %s", in.Code, st.Letter), Status: old.status}, central.Note{}, nil
	}
	if err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	if added == "" {
		// The server held the new label already: only one fresh from this
		// desk's own batch upload is a replacement (entitlement.CheckExistingNew).
		n := entitlement.ExistingNew{Code: in.Code, Status: app.Status(nc.status), Entitlement: nc.entitlement, CreatedAt: nc.createdAt}
		if err := tx.queryRow(ctx, `SELECT issued_by, EXISTS (SELECT 1 FROM events WHERE code = ? AND kind = ?) FROM codes WHERE code = ?`,
			in.Code, protocol.KindRedeem, in.Code).Scan(&n.IssuedBy, &n.Redeemed); err != nil {
			return protocol.Result{}, central.Note{}, err
		}
		if err := entitlement.CheckExistingNew(st.Name, root, in.CreatedAt, n); err != nil {
			return protocol.Result{Outcome: protocol.OutcomeRejected, Reason: err.Error(), Status: old.status}, central.Note{}, nil
		}
	}
	if _, err := tx.exec(ctx, `UPDATE codes SET entitlement = ? WHERE code IN (?, ?) AND entitlement = ''`, root, ev.Code, in.Code); err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	others, err := c.siblings(ctx, tx, root, ev.Code, in.Code)
	if err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	oldLabel := entitlement.Sibling{Code: ev.Code, Status: app.Status(old.status), UsedAt: old.usedAt, UsedStation: old.usedStation, UsedOperator: old.usedOperator, UsedEvent: old.usedEvent, Reason: old.reason}
	v, note := central.ReplaceByRemovedStaff(entitlement.DecideReplace(oldLabel, in.Code, others), ev.Operator, removed)
	if v.DisableOld {
		old.status, old.reason = string(app.StatusDisabled), entitlement.ReplacedReason(in.Code)
		if _, err := tx.exec(ctx, `UPDATE codes SET status = 'disabled', disabled_reason = ? WHERE code = ?`, old.reason, ev.Code); err != nil {
			return protocol.Result{}, central.Note{}, err
		}
	}
	if v.Void && nc.status != string(app.StatusUsed) {
		nc.status, nc.reason = string(app.StatusDisabled), v.VoidReason
		if _, err := tx.exec(ctx, `UPDATE codes SET status = 'disabled', disabled_reason = ? WHERE code = ?`, nc.reason, in.Code); err != nil {
			return protocol.Result{}, central.Note{}, err
		}
	}
	r := protocol.Result{Outcome: v.Outcome, Status: old.status}
	if v.Void {
		r.Reason = in.Code + " is " + v.VoidReason
	}
	data, _ := json.Marshal(map[string]any{"at": ev.At, "operator": ev.Operator, "event_id": ev.EventID, "reason": ev.Reason,
		"status": old.status, "disabled_reason": old.reason, "entitlement": root,
		"new_code": in.Code, "new_status": nc.status, "new_reason": nc.reason, "new_expire_at": nc.expireAt, "new_created_at": nc.createdAt})
	if err := c.addChanges(ctx, tx, change{protocol.KindReplace, ev.Code, st.Name, string(data)}); err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	if v.Outcome == protocol.OutcomeConflict {
		// The replacement came after the use: the second "use" is the new
		// label's redemption if it was redeemed, else the replacement.
		k := protocol.Conflict{Code: v.Used.Code, FirstEvent: v.Used.UsedEvent, FirstStation: v.Used.UsedStation, FirstOperator: v.Used.UsedOperator, FirstAt: v.Used.UsedAt,
			SecondCode: in.Code, SecondEvent: ev.EventID, SecondStation: st.Name, SecondOperator: ev.Operator, SecondAt: ev.At,
			Flag: fmt.Sprintf("replaced by %s at %s after it was used: %s is void", in.Code, st.Name, in.Code)}
		if nc.status == string(app.StatusUsed) {
			k.SecondEvent, k.SecondStation, k.SecondOperator, k.SecondAt, k.Flag = nc.usedEvent, nc.usedStation, nc.usedOperator, nc.usedAt, ""
		}
		if err := c.addConflict(ctx, tx, st, k, now); err != nil {
			return protocol.Result{}, central.Note{}, err
		}
		r.UsedAt, r.UsedStation, r.UsedOperator = v.Used.UsedAt, v.Used.UsedStation, v.Used.UsedOperator
	}
	return r, note, nil
}

// checkOneValid refuses an enable of code (entitlement.OneValid) when another
// label of its entitlement is valid or used; it holds the root's row.
func (c *DB) checkOneValid(ctx context.Context, tx *etx, code string) error {
	var ent string
	err := tx.queryRow(ctx, `SELECT entitlement FROM codes WHERE code = ?`, code).Scan(&ent)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && ent == "") {
		return nil
	}
	if err != nil {
		return err
	}
	if err := c.lockEntitlement(ctx, tx, ent); err != nil {
		return err
	}
	others, err := c.siblings(ctx, tx, ent, code)
	if err != nil {
		return err
	}
	return entitlement.OneValid(code, others)
}

// nullIf is nil when null, else v (a code without a station letter stores
// NULL station_id and serial, as a batch upload does).
func nullIf(null bool, v any) any {
	if null {
		return nil
	}
	return v
}
