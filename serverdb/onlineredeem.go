package serverdb

import (
	"context"
	"encoding/json"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/protocol"
)

// redeemOnlineOneStatement is PostgreSQL's path for the commonest event, an
// online redemption of an unused label: the guarded UPDATE, its feed entry
// and the event row in one statement (data-modifying CTEs), so one round
// trip and one commit instead of five round trips. It is exactly the
// transaction the general path would run for a label that gets redeemed:
// the UPDATE's WHERE is the same guard, and the rows of the feed and the
// event exist only if it changed a row.
//
// The station's write number (restore detection) is given in the same
// statement too, and kept on the event row.
//
// The feed entry goes to the label's site and to every other site holding
// a copy (holderSites, for a label without an entitlement: the stations
// with an event on it and the one that issued it) and to the redeeming
// station's, as addChanges writes it.
//
// The station is checked in the same statement: the server may have taken
// it from a short-lived cache of token lookups, and a revoked station
// changes nothing (ErrRevoked).
//
// done is false when the statement wrote nothing (the label is not unused,
// is expired or unknown, its operator is a name the staff list holds as
// removed (once at least: the general path reads the list at this time
// and refuses the scan, flagged, central.RedeemOnlineByRemovedStaff; the
// staff list is short, and free-text names it never held pass), or it
// belongs to an entitlement: a replacement's
// labels are decided on the general path, which serializes on the
// entitlement and checks its other labels) or the event id is known already (the event row's
// UNIQUE constraint undoes the whole statement): the caller then decides
// the event on the general path, which explains the refusal or finds the
// earlier answer.
func (c *DB) redeemOnlineOneStatement(ctx context.Context, st central.Station, ev protocol.Event, now int64) (r protocol.Result, done bool, err error) {
	r = protocol.Result{EventID: ev.EventID, Outcome: protocol.OutcomeRedeemed, UsedAt: now, UsedStation: st.Name, UsedOperator: ev.Operator, Status: string(app.StatusUsed)}
	detail, _ := json.Marshal(r)
	feed, _ := json.Marshal(map[string]any{"at": now, "operator": ev.Operator, "event_id": ev.EventID, "status": app.StatusUsed})
	var n int
	var active bool
	err = c.e.queryRow(ctx, `WITH active AS (
			SELECT 1 FROM stations WHERE id = ? AND token_hash = ? AND revoked_at = 0),
		used AS (
			UPDATE codes SET status = 'used', used_at = ?, used_station = ?, used_operator = ?, used_event = ?
			WHERE code = ? AND status = 'unused' AND (expire_at = 0 OR expire_at > ?) AND entitlement = '' AND EXISTS (SELECT 1 FROM active)
				AND NOT EXISTS (SELECT 1 FROM staff WHERE removed_at <> 0 AND `+c.sameName()+`)
			RETURNING code, site, issued_by),
		fed AS (
			INSERT INTO changes (kind, code, station, data, tag, site, holder_copy, decided_at)
			SELECT 'redeem', u.code, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), h.site, CASE WHEN h.site = u.site THEN 0 ELSE 1 END, CAST(? AS BIGINT) FROM used u,
				LATERAL (SELECT u.site AS site UNION SELECT t.site FROM stations t WHERE t.name IN (SELECT e.station FROM events e WHERE e.code = u.code UNION SELECT u.issued_by UNION SELECT CAST(? AS TEXT))) h),
		numbered AS (
			UPDATE stations SET writes = writes + 1 WHERE id = ? AND EXISTS (SELECT 1 FROM used)
			RETURNING writes),
		recorded AS (
			INSERT INTO events (event_id, station, kind, code, operator, at, received_at, decided_at, offline, outcome, detail, reason, flag, write_no)
			SELECT CAST(? AS TEXT), CAST(? AS TEXT), 'redeem', code, CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), false, 'redeemed', CAST(? AS TEXT), CAST(? AS TEXT), '',
				(SELECT writes FROM numbered) FROM used)
		SELECT (SELECT count(*) FROM used), EXISTS (SELECT 1 FROM active), COALESCE((SELECT writes FROM numbered), 0)`,
		st.ID, st.TokenHash,
		now, st.Name, ev.Operator, ev.EventID, ev.Code, now, ev.Operator,
		st.Name, string(feed), changeTag(), now, st.Name,
		st.ID,
		ev.EventID, st.Name, ev.Operator, ev.At, now, now, string(detail), ev.Reason).Scan(&n, &active, &r.Write)
	switch {
	case isUniqueAny(err):
		return protocol.Result{}, false, nil
	case err != nil:
		return protocol.Result{}, false, err
	case !active:
		return protocol.Result{}, false, central.ErrRevoked
	}
	return r, n == 1, nil
}
