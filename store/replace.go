package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"qrdesk/app"
	"qrdesk/entitlement"
	"qrdesk/protocol"
)

var _ app.ReplaceStore = (*DB)(nil)

// ReplaceCode disables a label and issues its replacement in one
// transaction (see app.ReplaceStore).
func (d *DB) ReplaceCode(ctx context.Context, old app.Code, reason string, spec app.BatchSpec, makeCode func(serial int) (app.Code, error)) (app.Replacement, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	defer tx.Rollback()
	rec, err := lookup(ctx, tx, old)
	if errors.Is(err, app.ErrNotFound) {
		return app.Replacement{}, app.Errorf(app.KindNotFound, "label %s is not in this desk's database: nothing to replace", old)
	}
	if err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	if err := replaceable(rec, spec.CreatedAt); err != nil {
		return app.Replacement{}, err
	}
	// Both labels join old's entitlement; it may not get a second valid
	// label (old was replaced already, and that replacement is valid).
	root, others, err := entitlementHere(ctx, tx, rec.ID)
	if err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	if err := entitlement.OneValid(old.String(), others); err != nil {
		return app.Replacement{}, app.Errorf(app.KindConflict, "label %s cannot be replaced: %v", old, err)
	}

	b := app.Batch{LabelDate: spec.LabelDate, Count: 1, Type: rec.Type, Ref: rec.Ref, ExpireAt: rec.ExpireAt, CreatedAt: spec.CreatedAt,
		Station: spec.Station, Operator: spec.Operator}
	var stationID sql.NullString
	if spec.Serial {
		stationID = sql.NullString{String: spec.StationID, Valid: true}
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(last_serial), 0) + 1 FROM batches WHERE label_date = ? AND prefix = ? AND station_id = ?`,
			spec.LabelDate, spec.Prefix, spec.StationID).Scan(&b.FirstSerial); err != nil {
			return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
		}
		b.LastSerial = b.FirstSerial
	}
	nc, err := makeCode(b.FirstSerial)
	if err != nil {
		return app.Replacement{}, err
	}
	// The guarded change of the old label: only while it is still unused
	// and not expired, whatever happened since the lookup.
	res, err := tx.ExecContext(ctx, `UPDATE codes SET status = 'disabled', disabled_reason = ?, entitlement = ?
		WHERE id = ? AND status = 'unused' AND (expire_at = 0 OR expire_at > ?)`, entitlement.ReplacedReason(nc.String()), root, rec.ID, spec.CreatedAt)
	if err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return app.Replacement{}, app.Errorf(app.KindConflict, "label %s changed while it was being replaced: look it up and try again", old)
	}
	r, err := tx.ExecContext(ctx, `INSERT INTO batches (label_date, count, type, ref, expire_at, created_at, first_serial, last_serial, prefix, station_id, station, operator)
		VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, b.LabelDate, b.Type, b.Ref, b.ExpireAt, b.CreatedAt, b.FirstSerial, b.LastSerial,
		spec.Prefix, stationID.String, b.Station, b.Operator)
	if err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	if b.ID, err = r.LastInsertId(); err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	var serial sql.NullInt64
	if spec.Serial {
		serial = sql.NullInt64{Int64: int64(b.FirstSerial), Valid: true}
	}
	var newID int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO codes (sig, serial_len, code_date, random, prefix, label_date, station_id, serial, batch_id, type, ref, key_id, expire_at, created_at, entitlement)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, nc.Signature, serialLen(nc), codeDate(nc), nc.Random, nc.Prefix, b.LabelDate, stationID, serial,
		b.ID, b.Type, b.Ref, string(nc.KeyID), b.ExpireAt, b.CreatedAt, root).Scan(&newID); err != nil {
		return app.Replacement{}, d.issueError(err, b.FirstSerial)
	}
	audit := `INSERT INTO audit (at, station, operator, action, subject, code_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?)`
	if _, err := tx.ExecContext(ctx, audit, spec.CreatedAt, spec.Station, spec.Operator, "replace", old.String(), rec.ID, "replaced by "+nc.String()+": "+reason); err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	if _, err := tx.ExecContext(ctx, audit, spec.CreatedAt, spec.Station, spec.Operator, "replacement", nc.String(), newID, "replaces "+old.String()+": "+reason); err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	// The server hears of the replacement through the outbox (one event
	// naming both labels: it links them into one entitlement and stores
	// the new one if its batch has not arrived) and of the new code through
	// the batch upload too.
	if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (event_id, kind, code, operator, at, reason, new_code, new_expire_at, new_created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		app.NewTraceID(), protocol.KindReplace, old.String(), spec.Operator, spec.CreatedAt, reason, nc.String(), b.ExpireAt, b.CreatedAt); err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	newRec, err := lookup(ctx, tx, nc)
	if err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	if err := tx.Commit(); err != nil {
		return app.Replacement{}, d.wrap(err, "cannot replace %s", old)
	}
	return app.Replacement{Old: old.String(), New: newRec, Batch: b.ID, Reason: reason}, nil
}

// replaceable says why a label cannot be replaced, in the clerk's words.
func replaceable(rec app.CodeRecord, now int64) error {
	switch {
	case rec.Status == app.StatusUsed:
		return app.Errorf(app.KindConflict, "label %s was already used (%s at %s): a used label cannot be replaced", rec.Code, app.FormatTime(rec.UsedAt), rec.UsedStation)
	case rec.Status == app.StatusExpired || (rec.ExpireAt != 0 && rec.ExpireAt <= now):
		return app.Errorf(app.KindConflict, "label %s expired at %s: issue a new label instead", rec.Code, app.FormatTime(rec.ExpireAt))
	case rec.Status == app.StatusDisabled:
		// A replacement would be an enable by another name, without the
		// supervisor an enable needs (the server refuses it too:
		// entitlement.DecideReplace).
		reason := rec.DisabledReason
		if reason == "" {
			reason = "no reason given"
		}
		return app.Errorf(app.KindConflict, "label %s is disabled (%s): enable it first (supervisor), then replace it", rec.Code, reason)
	}
	return nil
}

// entitlementHere returns the entitlement a replacement of the code with
// id joins (entitlement.Root) and its other labels as this desk knows them.
func entitlementHere(ctx context.Context, tx *sql.Tx, id int64) (string, []entitlement.Sibling, error) {
	var code, ent string
	if err := tx.QueryRowContext(ctx, `SELECT code, entitlement FROM codes WHERE id = ?`, id).Scan(&code, &ent); err != nil {
		return "", nil, err
	}
	root := entitlement.Root(code, ent)
	others, err := siblingsHere(ctx, tx, root, id)
	return root, others, err
}

// siblingsHere reads the labels of the entitlement ent but the one with id,
// with their standing redemption.
func siblingsHere(ctx context.Context, tx querier, ent string, id int64) ([]entitlement.Sibling, error) {
	if ent == "" {
		return nil, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT c.code, c.status, c.used_at, COALESCE(r.station, ''), COALESCE(r.operator, ''), COALESCE(r.trace_id, '')
		FROM codes c LEFT JOIN redemptions r ON r.code_id = c.id AND r.undone_at = 0
		WHERE c.entitlement = ? AND c.entitlement <> '' AND c.id <> ? ORDER BY c.id`, ent, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []entitlement.Sibling
	for rows.Next() {
		var s entitlement.Sibling
		if err := rows.Scan(&s.Code, &s.Status, &s.UsedAt, &s.UsedStation, &s.UsedOperator, &s.UsedEvent); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// entitlementUsedHere reports another label of the entitlement of the code
// with id that this desk knows was used (entitlement.UsedSibling): a use of
// both is a double use, refused here as at the server.
func entitlementUsedHere(ctx context.Context, tx querier, id int64) (entitlement.Sibling, bool, error) {
	var ent string
	if err := tx.QueryRowContext(ctx, `SELECT entitlement FROM codes WHERE id = ?`, id).Scan(&ent); err != nil || ent == "" {
		return entitlement.Sibling{}, false, err
	}
	others, err := siblingsHere(ctx, tx, ent, id)
	if err != nil {
		return entitlement.Sibling{}, false, err
	}
	used, ok := entitlement.UsedSibling(others)
	return used, ok, nil
}

// oneValidHere refuses making the code with id valid again (an enable)
// while another label of its entitlement is valid or used
// (entitlement.OneValid).
func oneValidHere(ctx context.Context, tx *sql.Tx, id int64, code app.Code) error {
	var ent string
	if err := tx.QueryRowContext(ctx, `SELECT entitlement FROM codes WHERE id = ?`, id).Scan(&ent); err != nil || ent == "" {
		return err
	}
	others, err := siblingsHere(ctx, tx, ent, id)
	if err != nil {
		return err
	}
	if err := entitlement.OneValid(code.String(), others); err != nil {
		return app.Errorf(app.KindConflict, "code %s cannot be enabled: %v", code, err)
	}
	return nil
}

// applyReplaceChange applies a replacement from the feed: the new label
// (stored if this desk has not heard of it), the link of both labels into
// one entitlement, and each label's status at the server, except where this
// desk's own event on the label still waits in the outbox, or it used the
// label here (the server hears of that and decides).
func applyReplaceChange(ctx context.Context, tx *sql.Tx, ch protocol.Change) error {
	var data struct {
		Status         string `json:"status"`
		DisabledReason string `json:"disabled_reason"`
		Entitlement    string `json:"entitlement"`
		NewCode        string `json:"new_code"`
		NewStatus      string `json:"new_status"`
		NewReason      string `json:"new_reason"`
		NewExpireAt    int64  `json:"new_expire_at"`
		NewCreatedAt   int64  `json:"new_created_at"`
	}
	json.Unmarshal([]byte(ch.Data), &data)
	if data.NewCode == "" || data.Entitlement == "" {
		return nil
	}
	// A desk holding neither label takes no copy of the new one: it reads
	// this change only because another desk of its site held the old label
	// (a holder copy), and when that desk moves away the label's later
	// changes no longer come here; its copy would stay unused while the
	// server has it used (design.md, "sites × replace × moves").
	_, oldHeld, err := deskLabel(ctx, tx, ch.Code)
	if err != nil {
		return err
	}
	_, newHeld, err := deskLabel(ctx, tx, data.NewCode)
	if err != nil || (!oldHeld && !newHeld) {
		return err
	}
	code, _ := json.Marshal(map[string]any{"expire_at": data.NewExpireAt, "created_at": data.NewCreatedAt})
	if err := applyChange(ctx, tx, protocol.Change{Kind: protocol.KindCode, Code: data.NewCode, Station: ch.Station, Data: string(code)}); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE codes SET entitlement = ?1 WHERE random IN (substr(?2, -22, 12), substr(?3, -22, 12)) AND code IN (?2, ?3) AND entitlement = ''`,
		data.Entitlement, ch.Code, data.NewCode); err != nil {
		return err
	}
	for _, l := range []struct{ code, status, reason string }{{ch.Code, data.Status, data.DisabledReason}, {data.NewCode, data.NewStatus, data.NewReason}} {
		if l.status != string(app.StatusDisabled) && l.status != string(app.StatusUnused) {
			continue // used: the feed's redemption brings it; expired stays as it is
		}
		if _, err := tx.ExecContext(ctx, `UPDATE codes SET status = ?, disabled_reason = ? WHERE `+byCode+` AND status IN ('unused', 'disabled', 'expired')`+noPendingOwn,
			l.status, l.reason, l.code, l.code, l.code); err != nil {
			return err
		}
	}
	return nil
}

// noPendingOwn holds a feed change of a label back while this desk's own
// disable, enable or replacement of it waits in the outbox.
const noPendingOwn = ` AND NOT EXISTS (SELECT 1 FROM outbox WHERE outbox.code = ? AND outbox.state = 'pending' AND outbox.kind IN ('disable', 'enable', 'replace'))`
