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

// refreshHolderSite writes the label's status now into the feed of the
// station's site, when that is not the label's own site and the decision
// wrote no change of its own (a scan answered "already used", a refused
// disable or undo): the desk has just set its copy from the answer.
//
// Why: another site's feed holds only the changes made while one of its
// desks held a copy (holderSites). A North desk that undid a main label
// and moved away left its undo in North's feed, and the redemption after
// it went to main alone. A second North desk, behind the feed, that scans
// the label later is told "already used" and then reads that older undo
// after its answer: without a change after it, its copy stays unused. The
// refresh, placed after the undo, carries the label as the server holds it
// now (as a snapshot's page does). A copy: the webhooks never deliver it.
func (c *DB) refreshHolderSite(ctx context.Context, tx *etx, st central.Station, code string) error {
	cc, err := c.readCode(ctx, tx, code)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && cc.site == st.SiteID) {
		return nil // not a label the server holds, or the station's site's own
	}
	if err != nil {
		return err
	}
	ch := statusChange(code, cc)
	// Written once per status: when the site's last copy of the label is
	// this very change, a desk reads it after any older change already,
	// and a clerk scanning a used slip again and again (each scan a new
	// event) would otherwise add a change for every desk of the site to
	// download for each scan. Every change of another site's label in a
	// site's feed is a holder copy; seq is the order they were written in
	// (under the label's lock).
	var last change
	err = tx.queryRow(ctx, `SELECT kind, station, data FROM changes WHERE code = ? AND site = ? AND holder_copy = 1 ORDER BY seq DESC LIMIT 1`,
		code, st.SiteID).Scan(&last.kind, &last.station, &last.data)
	switch {
	case err == nil && last.kind == ch.kind && last.station == ch.station && last.data == ch.data:
		return nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return err
	}
	_, err = tx.exec(ctx, `INSERT INTO changes (kind, code, station, data, tag, site, holder_copy, decided_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?)`,
		ch.kind, ch.code, ch.station, ch.data, changeTag(), st.SiteID, tx.now)
	return err
}

// statusChange is a feed change that sets a desk's copy of the label to
// the status the server holds (the desk's feedstatus.go applies it): the
// redemption of record for a used label, else the status itself.
func statusChange(code string, cc centralCode) change {
	switch app.Status(cc.status) {
	case app.StatusUsed:
		data, _ := json.Marshal(map[string]any{"at": cc.usedAt, "operator": cc.usedOperator, "event_id": cc.usedEvent, "status": app.StatusUsed})
		return change{protocol.KindRedeem, code, cc.usedStation, string(data)}
	case app.StatusDisabled:
		data, _ := json.Marshal(map[string]any{"reason": cc.reason, "status": app.StatusDisabled})
		return change{protocol.KindDisable, code, "", string(data)}
	case app.StatusExpired:
		return change{protocol.KindExpire, code, "", `{"status":"expired"}`}
	}
	return change{protocol.KindEnable, code, "", `{"status":"unused"}`}
}
