package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"qrdesk/app"
	"qrdesk/protocol"
)

var _ app.SyncStore = (*DB)(nil)

func (d *DB) PendingBatches(ctx context.Context) ([]int64, error) {
	// A replacement's one-label batch waits while its replace event is
	// pending: the event brings the label to the server linked to the one
	// it replaces. Uploaded alone first (the event's request dropped, the
	// token revoked), the label is an ordinary one there; a use of it
	// before the event arrives is no double use, and the event is then
	// refused (its new label is no longer fresh): the parcel of the old
	// label can go out twice with no conflict.
	rows, err := d.db.QueryContext(ctx, `SELECT id FROM batches WHERE uploaded = 0 AND created_at > 0
		AND NOT EXISTS (SELECT 1 FROM codes JOIN outbox ON outbox.new_code = codes.code
			WHERE codes.batch_id = batches.id AND outbox.kind = 'replace' AND outbox.state = 'pending')
		ORDER BY id`)
	if err != nil {
		return nil, d.wrap(err, "cannot read the batches to upload")
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func (d *DB) BatchUploadCodes(ctx context.Context, id int64) ([]protocol.UploadCode, error) {
	// Only a label of an entitlement can be a replacement's: the outbox
	// (no index on new_code) is not read for each code of a large batch.
	rows, err := d.db.QueryContext(ctx, `SELECT code, expire_at, created_at, ref, batch_id,
		CASE WHEN entitlement = '' THEN '' ELSE
			COALESCE((SELECT o.code FROM outbox o WHERE o.kind = 'replace' AND o.new_code = codes.code ORDER BY o.id LIMIT 1), '') END
		FROM codes WHERE batch_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, d.wrap(err, "cannot read batch %d", id)
	}
	defer rows.Close()
	var out []protocol.UploadCode
	for rows.Next() {
		var c protocol.UploadCode
		if err := rows.Scan(&c.Code, &c.ExpireAt, &c.CreatedAt, &c.Ref, &c.Batch, &c.Replaces); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The batch of an order imported here marks its labels with the
	// order's customer: the other desks name the order and the parcel.
	var customer string
	err = d.db.QueryRowContext(ctx, `SELECT customer FROM orders WHERE batch_id = ?`, id).Scan(&customer)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, d.wrap(err, "cannot read batch %d", id)
	default:
		for i := range out {
			out[i].Order = &protocol.OrderLabel{Customer: customer}
		}
	}
	return out, nil
}

func (d *DB) MarkBatchUploaded(ctx context.Context, id int64) error {
	_, err := d.db.ExecContext(ctx, `UPDATE batches SET uploaded = 1 WHERE id = ?`, id)
	return d.wrap(err, "cannot mark batch %d uploaded", id)
}

func (d *DB) PendingEvents(ctx context.Context, after int64, limit int) ([]protocol.Event, error) {
	// A redemption goes as this desk's fact: one the server answered
	// online (offline 0) goes again only after a restore lost it, and the
	// parcel was handed over.
	rows, err := d.db.QueryContext(ctx, `SELECT id, event_id, kind, code, operator, at, CASE WHEN kind = 'redeem' THEN 1 ELSE offline END, reason, undoes, new_code, new_expire_at, new_created_at, clock_offset_ms, clock_measured_at, staff, site
		FROM outbox WHERE state = 'pending' AND id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, d.wrap(err, "cannot read the outbox")
	}
	defer rows.Close()
	var out []protocol.Event
	for rows.Next() {
		var e protocol.Event
		var offset, measured sql.NullInt64
		var staff string
		if err := rows.Scan(&e.OutboxID, &e.EventID, &e.Kind, &e.Code, &e.Operator, &e.At, &e.Offline, &e.Reason, &e.Undoes, &e.NewCode, &e.NewExpireAt, &e.NewCreatedAt, &offset, &measured, &staff, &e.Site); err != nil {
			return nil, err
		}
		e.Operator = app.OperatorForServer(e.Operator) // as an older release stored it
		var err error
		if e.Staff, err = staffOf(staff); err != nil {
			return nil, d.wrap(err, "cannot read the outbox")
		}
		if offset.Valid && measured.Valid && measured.Int64 != 0 {
			// The measurement current when the event was queued.
			e.ClockOffsetMS, e.ClockAge = &offset.Int64, e.At-measured.Int64
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// MarkEvents records the server's answers: a refusal ("rejected") is kept
// with its reason and not sent again; every other answer means sent.
func (d *DB) MarkEvents(ctx context.Context, results []protocol.Result, at int64) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot update the outbox")
	}
	defer tx.Rollback()
	for _, r := range results {
		state := "sent"
		switch r.Outcome {
		case protocol.OutcomeRejected:
			state = "rejected"
		case protocol.OutcomeUnknown:
			// The desk that issued the code has not uploaded it yet: keep the
			// event and try again at the next sync.
			state = "pending"
		case protocol.OutcomeUnsupported:
			// The server is older than this desk: the event waits (its
			// result says so) until the server is upgraded.
			state = "pending"
		}
		if err := recordWrite(ctx, tx, r.Write, r.EventID); err != nil {
			return d.wrap(err, "cannot update the outbox")
		}
		data, _ := json.Marshal(r)
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET state = ?, result = ?, sent_at = ? WHERE event_id = ?`, state, string(data), at, r.EventID); err != nil {
			return d.wrap(err, "cannot update the outbox")
		}
		switch state {
		case "rejected":
			if err := undoRefused(ctx, tx, r, at); err != nil {
				return d.wrap(err, "cannot update the outbox")
			}
		case "sent":
			if err := undoAccepted(ctx, tx, r, at); err != nil {
				return d.wrap(err, "cannot update the outbox")
			}
		}
		if err := answerStatus(ctx, tx, r, at); err != nil {
			return d.wrap(err, "cannot update the outbox")
		}
		if err := labelTimes(ctx, tx, `(SELECT code FROM outbox WHERE event_id = ?)`, r.EventID, r); err != nil {
			return d.wrap(err, "cannot update the outbox")
		}
	}
	return d.wrap(tx.Commit(), "cannot update the outbox")
}

// labelTimes keeps, with this desk's copy of another site's label it
// never downloaded (created_at 0: known only from a scan), the expiry the
// server's answer tells (Result.LabelExpireAt): a copy without it would
// never expire here. code is an SQL expression of the label's code taking
// one argument, arg. The copy keeps created_at 0, so the label's code
// change, should the feed bring it, still completes it.
func labelTimes(ctx context.Context, tx *sql.Tx, code string, arg any, r protocol.Result) error {
	if r.LabelCreatedAt == 0 {
		return nil // an older server, or a label of this desk's site
	}
	_, err := tx.ExecContext(ctx, `UPDATE codes SET expire_at = ? WHERE random = substr(`+code+`, -22, 12) AND code = `+code+` AND created_at = 0 AND expire_at <> ?`,
		r.LabelExpireAt, arg, arg, r.LabelExpireAt)
	return err
}

// remoteBatch returns the placeholder batch that holds codes issued at
// another station (created_at 0, so it never counts in a day's figures).
func remoteBatch(ctx context.Context, tx *sql.Tx, station string) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM batches WHERE created_at = 0 AND label_date = 'remote' AND station = ?`, station).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO batches (label_date, count, created_at, station, operator, uploaded) VALUES ('remote', 1, 0, ?, 'sync', 1)`, station)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// ApplyChanges brings in the other stations' codes, redemptions, disables
// and enables, and every conflict, then stores the cursor; all or nothing.
func (d *DB) ApplyChanges(ctx context.Context, changes []protocol.Change, next int64) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot apply the server's changes")
	}
	defer tx.Rollback()
	// Sync and Follow may download at once: a change at or before the
	// stored cursor was applied already and is never applied again (an old
	// disable must not undo a later enable), and the cursor never goes back.
	var cursor int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT CAST(value AS INTEGER) FROM sync_state WHERE key = 'cursor'), 0)`).Scan(&cursor); err != nil {
		return d.wrap(err, "cannot apply the server's changes")
	}
	if next <= cursor {
		return nil // applied already
	}
	// The tag of the change at the new cursor: the desk's check of it at
	// its next feed request (a restored server holds another change there).
	check := ""
	var notUnderstood int
	var lastNotUnderstood string
	for _, ch := range changes {
		if ch.Seq == next {
			check = ch.Tag
		}
		if ch.Seq <= cursor {
			continue
		}
		if what := app.NotUnderstood(ch); what != "" {
			notUnderstood++
			lastNotUnderstood = fmt.Sprintf("%s on %s (feed position %d)", what, ch.Code, ch.Seq)
		}
		if err := applyChange(ctx, tx, ch); err != nil {
			return d.wrap(err, "cannot apply change %d", ch.Seq)
		}
	}
	if notUnderstood > 0 {
		if err := countNotUnderstood(ctx, tx, notUnderstood, lastNotUnderstood); err != nil {
			return d.wrap(err, "cannot apply the server's changes")
		}
	}
	if err := setFeedPosition(ctx, tx, next, check); err != nil {
		return d.wrap(err, "cannot apply the server's changes")
	}
	return d.wrap(tx.Commit(), "cannot apply the server's changes")
}

// setFeedPosition stores the feed cursor and the tag of the change there.
func setFeedPosition(ctx context.Context, tx *sql.Tx, cursor int64, check string) error {
	if err := setSyncState(ctx, tx, "cursor", strconv.FormatInt(cursor, 10)); err != nil {
		return err
	}
	return setSyncState(ctx, tx, "feed_check", check)
}

// noPendingToggle holds a feed disable or enable back while this desk's
// own disable or enable of the code waits in the outbox.
const noPendingToggle = ` AND NOT EXISTS (SELECT 1 FROM outbox WHERE outbox.code = ? AND outbox.state = 'pending' AND outbox.kind IN ('disable', 'enable', 'replace'))`

// carried is the status a feed change carries, or def (what the change's
// kind meant) when it carries none a desk knows.
func carried(said string, def app.Status) app.Status {
	for _, s := range app.Statuses {
		if string(s) == said {
			return s
		}
	}
	return def
}

// applyCodeRef keeps what a code change says of the label's batch: its
// ref, and whether that ref is a pickup order's (its customer).
func applyCodeRef(ctx context.Context, tx *sql.Tx, c app.Code, ref string, order *protocol.OrderLabel) error {
	if ref == "" {
		return nil
	}
	if order != nil {
		if _, err := tx.ExecContext(ctx, `INSERT INTO order_marks (number, customer, number_key) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, ref, order.Customer, app.OrderKey(ref)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO order_labels (code) VALUES (?) ON CONFLICT DO NOTHING`, c.String()); err != nil {
			return err
		}
	} else if _, err := tx.ExecContext(ctx, `DELETE FROM order_labels WHERE code = ?`, c.String()); err != nil {
		// Unmarked now: another site's label this desk holds alone (a
		// desk moved away, starting over), or an older server's.
		return err
	}
	// A label this desk knew before its batch's ref reached it (a
	// replacement's, or from an older server's feed).
	_, err := tx.ExecContext(ctx, `UPDATE codes SET ref = ? WHERE random = ? AND code = ? AND ref = ''`, ref, c.Random, c.String())
	return err
}

func applyChange(ctx context.Context, tx *sql.Tx, ch protocol.Change) error {
	var data struct {
		At       int64  `json:"at"`
		Operator string `json:"operator"`
		EventID  string `json:"event_id"`
		Reason   string `json:"reason"`
		ExpireAt int64  `json:"expire_at"`
		Created  int64  `json:"created_at"`
		// Status is the label's status at the server after the change
		// (absent from an older server's feed).
		Status string `json:"status"`
		// Ref is a code change's batch ref (absent from an older server's
		// feed, and for a batch without one).
		Ref string `json:"ref"`
		// Order marks a code change's label as a pickup order's (absent
		// from a server before protocol.OrderVersion).
		Order *protocol.OrderLabel `json:"order"`
		protocol.Conflict
	}
	json.Unmarshal([]byte(ch.Data), &data)
	if ch.Kind == protocol.KindRedeem && data.Flag != "" {
		if err := keepServerNote(ctx, tx, ch, data.Operator, data.At, data.Flag); err != nil {
			return err
		}
	}
	// A change that carries the label's resulting status sets this desk's
	// copy to it (feedstatus.go); without one (an older server's feed, a
	// snapshot's page) the kind says what to change, as before.
	if status, ok := knownStatus(data.Status); ok {
		switch ch.Kind {
		case protocol.KindRedeem:
			if status == app.StatusUsed {
				return applyRedeemChange(ctx, tx, ch, data.EventID, data.Operator, data.At)
			}
			return applyStatusChange(ctx, tx, ch.Code, status, "", data.At)
		case protocol.KindDisable, protocol.KindEnable, protocol.KindExpire:
			return applyStatusChange(ctx, tx, ch.Code, status, data.Reason, data.At)
		}
	}
	switch ch.Kind {
	case protocol.KindCode:
		c, err := app.Parse(ch.Code)
		if err != nil {
			return nil // not ours to judge; the server accepted it
		}
		batch, err := remoteBatch(ctx, tx, ch.Station)
		if err != nil {
			return err
		}
		var stationID, serial any
		if c.HasSerial() {
			stationID, serial = c.Station, c.Serial
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO codes (sig, serial_len, code_date, random, prefix, label_date, station_id, serial, batch_id, key_id, expire_at, created_at, ref)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			c.Signature, serialLen(c), codeDate(c), c.Random, c.Prefix, c.LabelDate(), stationID, serial, batch, string(c.KeyID), data.ExpireAt, data.Created, data.Ref)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			if err := recoverOwnCode(ctx, tx, ch.Station, c, data.Created, data.ExpireAt, data.Ref); err != nil {
				return err
			}
		}
		if err := applyCodeRef(ctx, tx, c, data.Ref, data.Order); err != nil {
			return err
		}
		return completeForeignCode(ctx, tx, c, batch, data.ExpireAt, data.Created)
	case protocol.KindRedeem:
		var id int64
		// The server's redemption of record wins over a disable or an expiry
		// decided here: the parcel was handed over at that desk.
		// Not a redemption this desk has undone since (its undo is on its
		// way to the server, which then sends an undo after this change).
		err := tx.QueryRowContext(ctx, `UPDATE codes SET status = 'used', used_at = ? WHERE `+byCode+` AND status <> 'used'`+notUndoneHere+` RETURNING id`, data.At, ch.Code, ch.Code, data.EventID).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // used here too: the server reports the conflict
		}
		if err != nil {
			return err
		}
		trace, err := feedTrace(ctx, tx, data.EventID, id, ch.Code)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO redemptions (code_id, station, operator, redeemed_at, trace_id, own) VALUES (?, ?, ?, ?, ?, `+ownEvent+`) ON CONFLICT DO NOTHING`,
			id, ch.Station, data.Operator, data.At, trace, trace, ch.Station, ch.Station)
		return err
	// Disables and enables are applied in feed order, this desk's own too,
	// so every desk ends in the server's state; except while this desk has
	// its own disable or enable of the code still waiting to be uploaded:
	// that is newer than anything in the feed, and it comes back through
	// the feed once the server has it. A disable also covers a label this
	// desk marked expired by its own clock (the server never expires one).
	// The label takes the status the change carries (an older server's:
	// what the kind meant).
	case protocol.KindDisable:
		_, err := tx.ExecContext(ctx, `UPDATE codes SET status = ?, disabled_reason = ? WHERE `+byCode+` AND status IN ('unused', 'expired')`+noPendingToggle,
			string(carried(data.Status, app.StatusDisabled)), data.Reason, ch.Code, ch.Code, ch.Code)
		return err
	case protocol.KindEnable:
		_, err := tx.ExecContext(ctx, `UPDATE codes SET status = ?, disabled_reason = '' WHERE `+byCode+` AND status = 'disabled'`+noPendingToggle,
			string(carried(data.Status, app.StatusUnused)), ch.Code, ch.Code, ch.Code)
		return err
	case protocol.KindUndo:
		return applyUndoChange(ctx, tx, ch)
	case protocol.KindExpire:
		return applyExpireChange(ctx, tx, ch)
	case protocol.KindReplace:
		return applyReplaceChange(ctx, tx, ch)
	case protocol.KindStaff:
		return applyStaffChange(ctx, tx, ch.Data)
	case protocol.KindConflict:
		return applyConflictChange(ctx, tx, data.Conflict, data.Status)
	}
	return nil
}

// applyConflictChange lists a conflict the feed brings, and applies what
// it means for this desk's copy of the label.
func applyConflictChange(ctx context.Context, tx *sql.Tx, k protocol.Conflict, status string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO conflicts (code, first_event, first_station, first_operator, first_at, second_event, second_station, second_operator, second_at, flag, second_code)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, k.Code, k.FirstEvent, k.FirstStation, k.FirstOperator, k.FirstAt,
		k.SecondEvent, k.SecondStation, k.SecondOperator, k.SecondAt, k.Flag, k.SecondCode)
	if err != nil {
		return err
	}
	if err := ownRecordTakesOver(ctx, tx, k); err != nil {
		return err
	}
	if status == string(app.StatusUsed) {
		return applyConflictUsed(ctx, tx, k)
	}
	return nil
}

// applyConflictUsed applies the status a double use's conflict change
// carries (used; a server before it sends none): the change of the
// second use's event, written to that desk's site after the event, so a
// desk that read an older change of the label after its own answer (a
// close's expiry, sent to its site while another desk there held the
// label) holds the label used again. Its own handover, the double use the
// conflict names second, stands again if such a change took it back (not
// an undo of its own): the parcel was handed over here, and the server
// keeps the use as a conflict.
func applyConflictUsed(ctx context.Context, tx *sql.Tx, k protocol.Conflict) error {
	id, ok, err := deskLabel(ctx, tx, k.Code)
	if err != nil || !ok {
		return err
	}
	if waits, err := waitsHere(ctx, tx, k.Code); err != nil || waits {
		return err
	}
	_, standing, err := standingRedemption(ctx, tx, id)
	if err != nil {
		return err
	}
	if !standing {
		if _, err := tx.ExecContext(ctx, `UPDATE redemptions SET undone_at = 0 WHERE code_id = ? AND trace_id = ? AND own = 1 AND undone_at <> 0
			AND NOT EXISTS (SELECT 1 FROM undos u WHERE u.undoes = redemptions.trace_id AND u.refused = '' AND EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = u.event_id))`,
			id, k.SecondEvent); err != nil {
			return err
		}
	}
	return settleStatus(ctx, tx, id, app.StatusUsed, "", k.FirstAt, k.FirstAt)
}

// ownRecordTakesOver applies a conflict that names a redemption of this
// desk first (it took the record over: an earlier use, uploaded late)
// while this desk holds it as no longer standing: another desk's undo of
// the label, applied before, stopped it standing here, as a handover of
// this desk the server decides after that undo (applyUndoChange), and the
// server sends no redeem change for a takeover, only the conflict. The
// desk's redemption stands again, the one the conflict names second stops
// standing, and the label is used: this desk counts the redemption of
// record as its own, as the server's dashboard does. An undo of this
// desk's own holds it back.
func ownRecordTakesOver(ctx context.Context, tx *sql.Tx, k protocol.Conflict) error {
	var id, codeID int64
	err := tx.QueryRowContext(ctx, `SELECT r.id, r.code_id FROM redemptions r JOIN codes c ON c.id = r.code_id
		WHERE c.random = substr(?, -22, 12) AND c.code = ? AND r.trace_id = ? AND r.own = 1 AND r.undone_at <> 0
		AND NOT EXISTS (SELECT 1 FROM undos u WHERE u.undoes = r.trace_id AND u.refused = '' AND EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = u.event_id))`,
		k.Code, k.Code, k.FirstEvent).Scan(&id, &codeID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE redemptions SET undone_at = ? WHERE code_id = ? AND undone_at = 0 AND id <> ?`, max(k.FirstAt, 1), codeID, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE redemptions SET undone_at = 0 WHERE id = ?`, id); err != nil {
		return err
	}
	return settleStatus(ctx, tx, codeID, app.StatusUsed, "", k.FirstAt, k.FirstAt)
}

// keepServerNote keeps the server's note on a redemption it flagged (a
// removed operator's, one past expiry: central/flags.go) in the label's
// history (an audit row 'server_flag'), once, whichever desk made it: the
// clerk looking the label up sees what the manager sees.
func keepServerNote(ctx context.Context, tx *sql.Tx, ch protocol.Change, operator string, at int64, note string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO audit (at, station, operator, action, subject, code_id, detail)
		SELECT ?, ?, ?, 'server_flag', code, id, ? FROM codes WHERE `+byCode+`
		AND NOT EXISTS (SELECT 1 FROM audit a WHERE a.action = 'server_flag' AND a.code_id = codes.id AND a.detail = ?)`,
		at, ch.Station, operator, note, ch.Code, ch.Code, note)
	return err
}

// MirrorRemote records locally what the server decided for a scan, in one
// transaction with the scan-log row.
func (d *DB) MirrorRemote(ctx context.Context, c app.Code, a app.Attempt, r protocol.Result) (app.Verdict, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return app.Verdict{}, d.wrap(err, "cannot record the scan")
	}
	defer tx.Rollback()
	v := app.Verdict{Code: c.String(), Outcome: app.Outcome(r.Outcome), UsedAt: r.UsedAt, UsedStation: r.UsedStation, UsedOperator: r.UsedOperator, Reason: r.Reason}
	var codeID sql.NullInt64
	if rec, err := lookup(ctx, tx, c); err == nil {
		codeID = sql.NullInt64{Int64: rec.ID, Valid: true}
		v.Status, v.ExpireAt = rec.Status, rec.ExpireAt
	} else if !errors.Is(err, app.ErrNotFound) {
		return app.Verdict{}, d.wrap(err, "cannot record the scan")
	}
	switch v.Outcome {
	case app.OutcomeRedeemed, app.OutcomeAlreadyUsed:
		if r.UsedCode != "" && v.Outcome == app.OutcomeAlreadyUsed {
			// Another label of its entitlement was used: this one stays
			// as it is (the server keeps it so too).
			v.UsedCode = r.UsedCode
			break
		}
		if !codeID.Valid {
			// A code of another desk this desk has not downloaded yet: keep
			// what the server said, so a second scan here (offline) is not
			// taken for a first one.
			id, err := insertForeignCode(ctx, tx, c, "known from the server", app.StatusUnused, 0)
			if err != nil {
				return app.Verdict{}, d.wrap(err, "cannot record the scan")
			}
			codeID = sql.NullInt64{Int64: id, Valid: true}
		}
		res, err := tx.ExecContext(ctx, `UPDATE codes SET status = 'used', used_at = ? WHERE id = ? AND status <> 'used'`, r.UsedAt, codeID.Int64)
		if err != nil {
			return app.Verdict{}, d.wrap(err, "cannot record the scan")
		}
		if n, _ := res.RowsAffected(); n == 1 {
			v.Affected = 1
			// This desk's own when the server redeemed it for this scan.
			own := v.Outcome == app.OutcomeRedeemed
			if _, err := tx.ExecContext(ctx, `INSERT INTO redemptions (code_id, station, operator, redeemed_at, trace_id, own) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				codeID.Int64, r.UsedStation, r.UsedOperator, r.UsedAt, r.EventID, own); err != nil {
				return app.Verdict{}, d.wrap(err, "cannot record the scan")
			}
		}
		v.Status = app.StatusUsed
		if v.Outcome == app.OutcomeRedeemed {
			v.Affected = 1
			// The feed's copy of this redemption may have landed first
			// (the desk follows the feed): the redemption is this desk's by
			// its event id, whichever copy came first.
			if _, err := tx.ExecContext(ctx, `UPDATE redemptions SET own = 1 WHERE code_id = ? AND trace_id IN (?, ?) AND own = 0`,
				codeID.Int64, r.EventID, a.TraceID); err != nil {
				return app.Verdict{}, d.wrap(err, "cannot record the scan")
			}
			// What this desk sent, as it sent it (its event id and its own
			// time), in the outbox as sent: a server restored from a backup
			// that lost it is sent it again as this desk's fact, in its
			// place before any undo of it (SendAgain).
			result, _ := json.Marshal(r)
			if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (event_id, kind, code, operator, at, offline, state, result, sent_at)
				VALUES (?, 'redeem', ?, ?, ?, 0, 'sent', ?, ?) ON CONFLICT (event_id) DO NOTHING`,
				a.TraceID, c.String(), a.Operator, a.At, string(result), a.At); err != nil {
				return app.Verdict{}, d.wrap(err, "cannot record the scan")
			}
		}
	case app.OutcomeDisabled, app.OutcomeExpired:
		if v.Outcome == app.OutcomeDisabled {
			v.DisabledReason = r.Reason
		}
		// The server's status of the label is this desk's copy's, unless
		// an event of this desk on it waits (feedstatus.go).
		status, ok := knownStatus(r.Status)
		if ok && status != app.StatusUsed && codeID.Valid {
			waits, err := waitsHere(ctx, tx, c.String())
			if err != nil {
				return app.Verdict{}, d.wrap(err, "cannot record the scan")
			}
			if !waits {
				reason := ""
				if status == app.StatusDisabled {
					reason = r.Reason
				}
				if err := settleStatus(ctx, tx, codeID.Int64, status, reason, 0, a.At); err != nil {
					return app.Verdict{}, d.wrap(err, "cannot record the scan")
				}
				v.Status = status
			}
		}
	}
	if err := labelTimes(ctx, tx, `?`, c.String(), r); err != nil {
		return app.Verdict{}, d.wrap(err, "cannot record the scan")
	}
	if err := insertScan(ctx, tx, a, v.Outcome, codeID); err != nil {
		return app.Verdict{}, d.wrap(err, "cannot record the scan")
	}
	if err := recordWrite(ctx, tx, r.Write, r.EventID); err != nil {
		return app.Verdict{}, d.wrap(err, "cannot record the scan")
	}
	return v, d.wrap(tx.Commit(), "cannot record the scan")
}

func (d *DB) SyncState(ctx context.Context) (app.SyncStatus, error) {
	var st app.SyncStatus
	err := d.db.QueryRowContext(ctx, `SELECT
		COALESCE((SELECT CAST(value AS INTEGER) FROM sync_state WHERE key = 'cursor'), 0),
		COALESCE((SELECT value FROM sync_state WHERE key = 'feed_check'), ''),
		COALESCE((SELECT CAST(value AS INTEGER) FROM sync_state WHERE key = 'last_ok'), 0),
		(SELECT count(*) FROM outbox WHERE state = 'pending'),
		COALESCE((SELECT at FROM outbox WHERE state = 'pending' ORDER BY id LIMIT 1), 0),
		(SELECT count(*) FROM outbox WHERE state = 'rejected'),
		(SELECT count(*) FROM outbox WHERE state = 'pending' AND result <> '' AND json_extract(result, '$.outcome') = ?),
		COALESCE((SELECT CAST(value AS INTEGER) FROM sync_state WHERE key = 'not_understood'), 0),
		COALESCE((SELECT value FROM sync_state WHERE key = 'not_understood_last'), ''),
		`+clockColumns, protocol.OutcomeUnsupported).
		Scan(&st.Cursor, &st.Check, &st.LastOK, &st.Waiting, &st.OldestWaitingAt, &st.Rejected, &st.WaitingUpgrade, &st.NotUnderstood, &st.NotUnderstoodLast, &st.Clock.OffsetMS, &st.Clock.MeasuredAt)
	return st, d.wrap(err, "cannot read the sync state")
}

func (d *DB) SetSyncOK(ctx context.Context, at int64) error {
	_, err := d.db.ExecContext(ctx, `INSERT INTO sync_state (key, value) VALUES ('last_ok', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.FormatInt(at, 10))
	return d.wrap(err, "cannot save the sync state")
}

func (d *DB) Conflicts(ctx context.Context) ([]protocol.Conflict, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT code, first_event, first_station, first_operator, first_at, second_event, second_station, second_operator, second_at, flag, second_code
		FROM conflicts ORDER BY first_at`)
	if err != nil {
		return nil, d.wrap(err, "cannot read the conflicts")
	}
	return scanConflicts(rows)
}

// StartOver notes that a start over from the server's snapshot began; the
// snapshot's last page (ApplySnapshot) clears the note with the cursor.
func (d *DB) StartOver(ctx context.Context) error {
	_, err := d.db.ExecContext(ctx, `INSERT INTO sync_state (key, value) VALUES ('starting_over', '1') ON CONFLICT (key) DO UPDATE SET value = excluded.value`)
	return d.wrap(err, "cannot save the sync state")
}

// StartingOver reports whether a start over began and its last page is
// not applied yet.
func (d *DB) StartingOver(ctx context.Context) (bool, error) {
	var on bool
	err := d.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sync_state WHERE key = 'starting_over' AND value = '1')`).Scan(&on)
	return on, d.wrap(err, "cannot read the sync state")
}

// ApplySnapshot brings this desk's copy to the server's state for one page
// of codes, as the changes that led there, in one transaction; with the
// last page it sets the cursor to position (the feed is followed from
// there). A label used here stays used; a disable or enable of this desk
// still waiting to be uploaded stays.
func (d *DB) ApplySnapshot(ctx context.Context, page protocol.Snapshot, position int64) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot apply the server's snapshot")
	}
	defer tx.Rollback()
	for _, c := range page.Codes {
		data, _ := json.Marshal(map[string]any{"expire_at": c.ExpireAt, "created_at": c.CreatedAt, "ref": c.Ref, "order": c.Order})
		changes := []protocol.Change{{Kind: protocol.KindCode, Code: c.Code, Station: c.IssuedBy, Data: string(data)}}
		// Each status as a feed change that carries it: this desk's copy
		// becomes the server's, unless an event of this desk on the label
		// waits (feedstatus.go).
		switch c.Status {
		case "used":
			if err := undoneOnlyHere(ctx, tx, c.UsedEvent); err != nil {
				return d.wrap(err, "cannot apply the server's snapshot")
			}
			data, _ := json.Marshal(map[string]any{"at": c.UsedAt, "operator": c.UsedOperator, "event_id": c.UsedEvent, "status": "used"})
			changes = append(changes, protocol.Change{Kind: protocol.KindRedeem, Code: c.Code, Station: c.UsedStation, Data: string(data)})
		case "disabled":
			data, _ := json.Marshal(map[string]any{"reason": c.DisabledReason, "status": "disabled"})
			changes = append(changes, protocol.Change{Kind: protocol.KindDisable, Code: c.Code, Data: string(data)})
		case "unused":
			if err := notHeldByServer(ctx, tx, c.Code); err != nil {
				return d.wrap(err, "cannot apply the server's snapshot")
			}
			changes = append(changes, protocol.Change{Kind: protocol.KindEnable, Code: c.Code, Data: `{"status":"unused"}`})
		case "expired":
			changes = append(changes, protocol.Change{Kind: protocol.KindExpire, Code: c.Code, Data: `{"status":"expired"}`})
		}
		for _, ch := range changes {
			if err := applyChange(ctx, tx, ch); err != nil {
				return d.wrap(err, "cannot apply the server's snapshot")
			}
		}
		if c.Entitlement != "" {
			if _, err := tx.ExecContext(ctx, `UPDATE codes SET entitlement = ? WHERE `+byCode+` AND entitlement = ''`, c.Entitlement, c.Code, c.Code); err != nil {
				return d.wrap(err, "cannot apply the server's snapshot")
			}
		}
	}
	// The conflicts of the page's labels are the server's: one this desk
	// holds that the server does not (a restore lost it; the redemptions
	// sent again make it anew, and the feed brings it) is dropped. The
	// first page drops them all: a label a conflict names may be one the
	// restored server does not hold yet, on no page.
	codes := make([]string, len(page.Codes))
	for i, c := range page.Codes {
		codes[i] = c.Code
	}
	list, _ := json.Marshal(codes)
	forget := `DELETE FROM conflicts WHERE code IN (SELECT value FROM json_each(?))`
	if page.First {
		forget = `DELETE FROM conflicts WHERE ? <> ''` // every one: the pages bring the server's
	}
	if _, err := tx.ExecContext(ctx, forget, string(list)); err != nil {
		return d.wrap(err, "cannot apply the server's snapshot")
	}
	for _, k := range page.Conflicts {
		data, _ := json.Marshal(k)
		if err := applyChange(ctx, tx, protocol.Change{Kind: protocol.KindConflict, Code: k.Code, Data: string(data)}); err != nil {
			return d.wrap(err, "cannot apply the server's snapshot")
		}
	}
	if page.First && page.Staff != nil {
		if err := applyStaffList(ctx, tx, page.Staff); err != nil {
			return d.wrap(err, "cannot apply the server's snapshot")
		}
	}
	if page.NextID == 0 {
		if err := setFeedPosition(ctx, tx, position, page.Check); err != nil {
			return d.wrap(err, "cannot apply the server's snapshot")
		}
		if err := setSyncState(ctx, tx, "starting_over", "0"); err != nil {
			return d.wrap(err, "cannot apply the server's snapshot")
		}
	}
	return d.wrap(tx.Commit(), "cannot apply the server's snapshot")
}

// SendAgain queues again every batch issued here and every event the
// server accepted (online redemptions included, in their place). An event
// the server refused is not (but for a replacement and an undo, below): it
// changed nothing there, and decided anew on the restored server it could
// do what the clerk was told was refused (a disable refused because the
// label was used elsewhere, accepted on a server that lost that use); the
// desk keeps the refusal.
func (d *DB) SendAgain(ctx context.Context) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot queue everything for the server again")
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE batches SET uploaded = 0 WHERE created_at > 0 AND uploaded = 1`); err != nil {
		return d.wrap(err, "cannot queue everything for the server again")
	}
	// A refused replacement goes again too: its refusal made the new label
	// void at the server, which the restored server must hold as well. So
	// does a refused undo: refused by a server restored to before it, it
	// may be held by the one restored now, which answers it as the
	// duplicate it is (the soak's seed 695094661), even when this desk
	// never heard it accepted (the answer was lost:
	// TestUndoAnswerLostThenRefusedByAnOlderBackup); one refused for good
	// is refused again.
	if _, err := tx.ExecContext(ctx, `UPDATE outbox SET state = 'pending' WHERE state = 'sent' OR (state = 'rejected' AND kind IN (?, ?))`,
		protocol.KindReplace, protocol.KindUndo); err != nil {
		return d.wrap(err, "cannot queue everything for the server again")
	}
	// Redemptions the server decided online for this desk are in the
	// outbox as sent (MirrorRemote), so they went pending above, in their
	// place. Those answered before this desk kept them there go as this
	// desk's facts at the end, with the desk's time of the scan (a known
	// one is a duplicate). Only its own: a row mirrored from an answer
	// "already used at this desk" carries the refused attempt's id, and
	// sending that as a redemption would make one the clerk was refused.
	if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (event_id, kind, code, operator, at, offline)
		SELECT r.trace_id, 'redeem', c.code, r.operator, COALESCE((SELECT s.at FROM scans s WHERE s.trace_id = r.trace_id), r.redeemed_at), 1
		FROM redemptions r JOIN codes c ON c.id = r.code_id
		WHERE r.own = 1 AND r.undone_at = 0 AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = r.trace_id)`); err != nil {
		return d.wrap(err, "cannot queue everything for the server again")
	}
	// The first release kept nothing of a label it did not hold when the
	// server redeemed it online for this desk (during a roll-out, the
	// server decides such a desk's scans), only the scan: those go too.
	// This release always keeps the label (MirrorRemote), so only an
	// upgraded first-release desk has such scans.
	if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (event_id, kind, code, operator, at, offline)
		SELECT s.trace_id, 'redeem', s.code, s.operator, s.at, 1 FROM scans s
		WHERE s.outcome = 'redeemed' AND s.code_id IS NULL AND s.code <> ''
		AND NOT EXISTS (SELECT 1 FROM codes c WHERE c.random = substr(s.code, -22, 12) AND c.code = s.code)
		AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = s.trace_id)`); err != nil {
		return d.wrap(err, "cannot queue everything for the server again")
	}
	return d.wrap(tx.Commit(), "cannot queue everything for the server again")
}

// CodesHeld returns the highest code id this desk holds.
func (d *DB) CodesHeld(ctx context.Context) (int64, error) {
	var id int64
	err := d.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM codes`).Scan(&id)
	return id, d.wrap(err, "cannot read the codes")
}

// DropStaleCopies forgets the copies of other desks' labels (a remote
// batch's) with ids up to maxID that inSnapshot says the server's snapshot
// did not bring, unless this desk did anything the server keeps on one: an
// event in the outbox (its online redemptions are there too), a
// redemption of its own, an undo of its own (its event is in the outbox),
// a print, an audit row of its own (app's dropStaleCopies says why). What
// the server told of the label keeps nothing: a conflict naming it (one
// this desk took part in comes with its own redemption; one of another
// desk of its site is listed without the label: the snapshot brings it,
// not the label, whose changes come here only while that desk holds it),
// nor the server's note on a redemption it flagged (keepServerNote,
// written at every desk the change reached), nor another desk's undo the
// feed brought (applyUndoChange records it, with its line in the label's
// history, at every desk that held the redemption it takes back). What
// such a copy still carries goes with it: the other desks' redemptions and
// undos the feed brought, the server's notes; this desk's refused scans of
// it stay in the scan log, without the label (the server does not hold
// them as this desk's, or the snapshot would have brought the label: a
// restore lost them).
func (d *DB) DropStaleCopies(ctx context.Context, maxID int64, inSnapshot func(code string) bool) (int, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT c.id, c.code FROM codes c JOIN batches b ON b.id = c.batch_id
		WHERE c.id <= ? AND b.created_at = 0 AND b.label_date = 'remote'`, maxID)
	if err != nil {
		return 0, d.wrap(err, "cannot read the copies of other desks' labels")
	}
	var ids []int64
	for rows.Next() {
		var id int64
		var code string
		if err := rows.Scan(&id, &code); err != nil {
			rows.Close()
			return 0, d.wrap(err, "cannot read the copies of other desks' labels")
		}
		if !inSnapshot(code) {
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, d.wrap(err, "cannot read the copies of other desks' labels")
	}
	if len(ids) == 0 {
		return 0, nil
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, d.wrap(err, "cannot drop the copies of other desks' labels")
	}
	defer tx.Rollback()
	list, _ := json.Marshal(ids)
	// A copy the snapshot did not bring, kept below for what this desk did
	// with it, is followed no more as an order's parcel: its order's other
	// parcels are dropped, or never were here, and the mark it had from
	// this desk's old site would name it "parcel 1 of 1" (seed 10451708:
	// a desk moved away after disabling one parcel).
	if _, err := tx.ExecContext(ctx, `DELETE FROM order_labels WHERE code IN (SELECT code FROM codes WHERE id IN (SELECT value FROM json_each(?)))`, string(list)); err != nil {
		return 0, d.wrap(err, "cannot drop the copies of other desks' labels")
	}
	// Each NOT IN list is built once (not a search per copy: the outbox
	// has no index on the code).
	rows, err = tx.QueryContext(ctx, `SELECT c.id FROM codes c WHERE c.id IN (SELECT value FROM json_each(?))
		AND c.batch_id IN (SELECT id FROM batches WHERE created_at = 0 AND label_date = 'remote')
		AND c.id NOT IN (SELECT code_id FROM redemptions WHERE own = 1)
		AND c.id NOT IN (SELECT code_id FROM undos WHERE event_id IN (SELECT event_id FROM outbox WHERE kind = 'undo'))
		AND c.id NOT IN (SELECT code_id FROM audit WHERE code_id IS NOT NULL AND action NOT IN ('server_flag', 'undo'))
		AND c.id NOT IN (SELECT code_id FROM print_job_codes)
		AND c.code NOT IN (SELECT code FROM outbox WHERE code IS NOT NULL)`, string(list))
	if err != nil {
		return 0, d.wrap(err, "cannot drop the copies of other desks' labels")
	}
	ids = ids[:0]
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, d.wrap(err, "cannot drop the copies of other desks' labels")
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, d.wrap(err, "cannot drop the copies of other desks' labels")
	}
	list, _ = json.Marshal(ids)
	var n int64
	for _, q := range []string{
		`UPDATE scans SET code_id = NULL WHERE code_id IN (SELECT value FROM json_each(?))`,
		`DELETE FROM audit WHERE action IN ('server_flag', 'undo') AND code_id IN (SELECT value FROM json_each(?))`,
		`DELETE FROM undos WHERE code_id IN (SELECT value FROM json_each(?))`,
		`DELETE FROM redemptions WHERE code_id IN (SELECT value FROM json_each(?))`,
		`DELETE FROM codes WHERE id IN (SELECT value FROM json_each(?))`,
	} {
		res, err := tx.ExecContext(ctx, q, string(list))
		if err != nil {
			return 0, d.wrap(err, "cannot drop the copies of other desks' labels")
		}
		n, _ = res.RowsAffected()
	}
	return int(n), d.wrap(tx.Commit(), "cannot drop the copies of other desks' labels")
}
