package serverdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/entitlement"
	"qrdesk/protocol"
)

// expire applies a desk's expiry of one label of a closed day with one
// guarded UPDATE: only an unused label expires. A label used, disabled or
// expired at the server meanwhile stays as it is (not_expired); the desk
// that closed the day learns the server's state from the feed, which
// carries the other desk's change. An accepted expiry goes to every desk
// through the feed with the label's resulting status. A close's expiry is
// a request: a label of another site, or of a day not begun on the
// server's clock (now), is not expired (central.CloseExpiryRefusal), nor
// one closed by a desk whose time zone is ahead of another desk of its
// site (central.CloseZoneRefusal), nor
// one closed by a supervisor the staff list had removed by then (refused,
// flagged: central.RefusedByRemovedStaff); the answer carries the reason
// and the label's status at the server.
func (c *DB) expire(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, now int64) (protocol.Result, central.Note, error) {
	// The label under its lock (labellock.go): not_expired names the
	// status that kept it, not one an undo of it is leaving.
	cc, err := c.lockLabel(ctx, tx, ev.Code)
	if errors.Is(err, sql.ErrNoRows) {
		return protocol.Result{Outcome: protocol.OutcomeUnknown, Reason: "the server has no such code: upload the batch first"}, central.Note{}, nil
	}
	if err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	// The closing desk's site as stored now, not as the request's cached
	// station has it: a desk moved a moment ago ('qrdesk-server station
	// site', another process) closes as a desk of its new site.
	label := central.ClosedLabel{Code: ev.Code}
	var deskSite string
	var deskSiteID int64
	if err := tx.queryRow(ctx, `SELECT c.label_date, s.name, ds.name, ds.id
		FROM codes c JOIN sites s ON s.id = c.site, stations t JOIN sites ds ON ds.id = t.site WHERE c.code = ? AND t.id = ?`, ev.Code, st.ID).Scan(&label.Day, &label.Site, &deskSite, &deskSiteID); err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	closedIn := ev.Site
	if closedIn != "" && closedIn != deskSite {
		// Closed before the desk heard its site was renamed: the same site.
		if same, err := wasSiteName(ctx, tx, closedIn, deskSiteID); err != nil {
			return protocol.Result{}, central.Note{}, err
		} else if same {
			closedIn = deskSite
		}
	}
	if why := central.CloseSiteRefusal(closedIn, deskSite); why != "" {
		return notExpired(cc, why), central.Note{}, nil
	}
	removed, err := c.removedSupervisor(ctx, tx, ev, now)
	if err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	if note, why, refused := central.RefusedByRemovedStaff(ev.Kind, ev.Operator, removed); refused {
		return notExpired(cc, why), note, nil
	}
	if why := central.CloseExpiryRefusal(label, deskSite, time.Unix(now, 0)); why != "" {
		return notExpired(cc, why), central.Note{}, nil
	}
	if why, err := c.closeZoneRefusal(ctx, tx, st, deskSiteID, now); err != nil || why != "" {
		return notExpired(cc, why), central.Note{}, err
	}
	res, err := tx.exec(ctx, `UPDATE codes SET status = 'expired' WHERE code = ? AND status = 'unused'`, ev.Code)
	if err != nil {
		return protocol.Result{}, central.Note{}, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		data, _ := json.Marshal(map[string]any{"at": ev.At, "operator": ev.Operator, "event_id": ev.EventID, "reason": ev.Reason, "status": app.StatusExpired})
		return protocol.Result{Outcome: protocol.OutcomeExpired, Status: string(app.StatusExpired)}, central.Note{},
			c.addChanges(ctx, tx, change{protocol.KindExpire, ev.Code, st.Name, string(data)})
	}
	if cc.entitlement != "" {
		// Replaced: the parcel of the day expires, on the entitlement's
		// valid label of that day (entitlement.ExpireTarget).
		if r, ok, err := c.expireReplacement(ctx, tx, st, ev, cc); err != nil || ok {
			return r, central.Note{}, err
		}
	}
	reason := "the label is " + cc.status + " at the server"
	if cc.status == string(app.StatusUsed) {
		reason += " (" + cc.usedStation + ", " + app.FormatTime(cc.usedAt) + ")"
	}
	return notExpired(cc, reason), central.Note{}, nil
}

// closeZoneRefusal reads the time zones the closing desk and the other
// current desks of its site last reported (the server's at now for one
// that never said, as the dashboard assumes) for central.CloseZoneRefusal.
func (c *DB) closeZoneRefusal(ctx context.Context, tx *etx, st central.Station, siteID, now int64) (string, error) {
	_, serverOffset := time.Unix(now, 0).Zone()
	rows, err := tx.query(ctx, `SELECT id, name, COALESCE(utc_offset, ?) FROM stations WHERE site = ? AND (revoked_at = 0 OR id = ?)`, serverOffset, siteID, st.ID)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var closer central.DeskZone
	var others []central.DeskZone
	for rows.Next() {
		var id int64
		var z central.DeskZone
		if err := rows.Scan(&id, &z.Station, &z.Offset); err != nil {
			return "", err
		}
		if id == st.ID {
			closer = z
		} else {
			others = append(others, z)
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return central.CloseZoneRefusal(closer, others), nil
}

// notExpired answers an expiry the server did not make, with the label's
// status (and its redemption of record, when used) for the desk's copy.
func notExpired(cc centralCode, reason string) protocol.Result {
	r := protocol.Result{Outcome: protocol.OutcomeNotExpired, Reason: reason, Status: cc.status}
	if cc.status == string(app.StatusUsed) {
		r.UsedAt, r.UsedStation, r.UsedOperator = cc.usedAt, cc.usedStation, cc.usedOperator
	}
	return r
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
	err := tx.queryRow(ctx, `SELECT COALESCE(min(at), 0) FROM events WHERE code = ? AND kind = ? AND outcome = ?`, code, protocol.KindExpire, protocol.OutcomeExpired).Scan(&at)
	return at, err
}

// expireReplacement expires, for a close's expiry of the label ev.Code
// (cc) that is no longer valid at the server, the valid label of its
// entitlement of the same label day, if there is one (entitlement.ExpireTarget):
// the feed's expire change names that label. ok is false when nothing
// expired.
func (c *DB) expireReplacement(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, cc centralCode) (protocol.Result, bool, error) {
	if err := c.lockEntitlement(ctx, tx, cc.entitlement); err != nil {
		return protocol.Result{}, false, err
	}
	var day string
	if err := tx.queryRow(ctx, `SELECT label_date FROM codes WHERE code = ?`, ev.Code).Scan(&day); err != nil {
		return protocol.Result{}, false, err
	}
	others, err := c.siblings(ctx, tx, cc.entitlement, ev.Code)
	if err != nil {
		return protocol.Result{}, false, err
	}
	old := entitlement.Sibling{Code: ev.Code, Status: app.Status(cc.status), LabelDate: day, Reason: cc.reason}
	target, ok := entitlement.ExpireTarget(old, others)
	if !ok || target == ev.Code {
		return protocol.Result{}, false, nil
	}
	res, err := tx.exec(ctx, `UPDATE codes SET status = 'expired' WHERE code = ? AND status = 'unused'`, target)
	if err != nil {
		return protocol.Result{}, false, err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return protocol.Result{}, false, nil
	}
	data, _ := json.Marshal(map[string]any{"at": ev.At, "operator": ev.Operator, "event_id": ev.EventID, "reason": ev.Reason + " (expiring " + ev.Code + ")", "status": app.StatusExpired})
	if err := c.addChanges(ctx, tx, change{protocol.KindExpire, target, st.Name, string(data)}); err != nil {
		return protocol.Result{}, false, err
	}
	return protocol.Result{Outcome: protocol.OutcomeExpired, Status: cc.status,
		Reason: ev.Code + " is " + cc.status + " at the server: " + target + ", the valid label of its entitlement for that day, expired instead"}, true, nil
}
