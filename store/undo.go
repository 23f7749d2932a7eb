package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"qrdesk/app"
	"qrdesk/protocol"
)

var _ app.UndoStore = (*DB)(nil)

// notUndoneHere keeps a feed redemption from marking a label used again
// when this desk has undone that very redemption (its undo is on its way to
// the server, which sends the undo after it). The argument is the
// redemption's event id; the undo must be of this label (codes.id), since
// another label's redemption can arrive under the same id (feedTrace).
const notUndoneHere = ` AND NOT EXISTS (SELECT 1 FROM undos WHERE undos.undoes = ? AND undos.code_id = codes.id AND undos.refused = '')`

// UndoRedemption puts a label back to unused (see app.UndoStore).
func (d *DB) UndoRedemption(ctx context.Context, c app.Code, since app.UndoSince, u app.Undo, actor app.Actor) (app.Undo, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return app.Undo{}, d.wrap(err, "cannot undo the redemption of %s", c)
	}
	defer tx.Rollback()
	// The one conditional UPDATE: used, by a standing redemption of this
	// desk (r.own: its own scan, whatever name the row carries: the
	// server's name for the desk when it answered online, or the desk's
	// before a rename), made within the window. Of two supervisors undoing at once,
	// exactly one sees the row come back. A redemption the server decided
	// (its event sent online, offline = 0) is at the server's time.
	var codeID int64
	err = tx.QueryRowContext(ctx, `UPDATE codes SET status = 'unused', used_at = 0
		WHERE random = ?1 AND code = ?2 AND status = 'used' AND EXISTS (SELECT 1 FROM redemptions r
			WHERE r.code_id = codes.id AND r.undone_at = 0 AND r.own = 1
			AND r.redeemed_at >= CASE WHEN EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = r.trace_id AND o.kind = 'redeem' AND o.offline = 0) THEN ?4 ELSE ?3 END)
		RETURNING id`, c.Random, c.String(), since.Desk, since.Server).Scan(&codeID)
	if errors.Is(err, sql.ErrNoRows) {
		return app.Undo{}, d.whyNoUndo(ctx, tx, c, since, actor)
	}
	if err != nil {
		return app.Undo{}, d.wrap(err, "cannot undo the redemption of %s", c)
	}
	var redemptionID int64
	if err := tx.QueryRowContext(ctx, `UPDATE redemptions SET undone_at = ? WHERE code_id = ? AND undone_at = 0
		RETURNING id, trace_id, redeemed_at, operator`, u.At, codeID).Scan(&redemptionID, &u.Undoes, &u.RedeemedAt, &u.RedeemedBy); err != nil {
		return app.Undo{}, d.wrap(err, "cannot undo the redemption of %s", c)
	}
	if err := insertUndo(ctx, tx, redemptionID, codeID, u, actor.Station); err != nil {
		return app.Undo{}, d.wrap(err, "cannot undo the redemption of %s", c)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (event_id, kind, code, operator, at, reason, undoes) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		u.EventID, protocol.KindUndo, c.String(), actor.Operator, u.At, u.Reason, u.Undoes); err != nil {
		return app.Undo{}, d.wrap(err, "cannot undo the redemption of %s", c)
	}
	u.Status = app.StatusUnused
	return u, d.wrap(tx.Commit(), "cannot undo the redemption of %s", c)
}

// insertUndo writes the undo row and the audit row the label's history shows.
func insertUndo(ctx context.Context, tx *sql.Tx, redemptionID, codeID int64, u app.Undo, station string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO undos (redemption_id, code_id, event_id, undoes, station, operator, at, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		redemptionID, codeID, u.EventID, u.Undoes, station, u.Operator, u.At, u.Reason); err != nil {
		return err
	}
	detail := fmt.Sprintf("%s (redemption of %s by %s undone)", u.Reason, app.FormatTime(u.RedeemedAt), u.RedeemedBy)
	_, err := tx.ExecContext(ctx, `INSERT INTO audit (at, station, operator, action, subject, code_id, detail) VALUES (?, ?, ?, 'undo', ?, ?, ?)`,
		u.At, station, u.Operator, u.Code, codeID, detail)
	return err
}

// whyNoUndo explains why the conditional UPDATE changed nothing.
func (d *DB) whyNoUndo(ctx context.Context, tx *sql.Tx, c app.Code, since app.UndoSince, actor app.Actor) error {
	rec, err := lookup(ctx, tx, c)
	if errors.Is(err, app.ErrNotFound) {
		return app.Errorf(app.KindNotFound, "label %s is not in this desk's database: nothing to undo", c)
	}
	if err != nil {
		return d.wrap(err, "cannot undo the redemption of %s", c)
	}
	if rec.Status != app.StatusUsed {
		return app.Errorf(app.KindConflict, "label %s is %s, not used: only a redeemed label can be put back", c, rec.Status)
	}
	var at int64
	var station string
	var own bool
	err = tx.QueryRowContext(ctx, `SELECT redeemed_at, station, own FROM redemptions WHERE code_id = ? AND undone_at = 0`, rec.ID).Scan(&at, &station, &own)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return app.Errorf(app.KindConflict, "label %s has no redemption recorded at this desk to undo", c)
	case err != nil:
		return d.wrap(err, "cannot undo the redemption of %s", c)
	case !own:
		return app.Errorf(app.KindConflict, "label %s was redeemed at %s (%s): only that desk can undo it", c, station, app.FormatTime(at))
	}
	window := d.now().Unix() - since.Desk
	return app.Errorf(app.KindConflict, "label %s was redeemed at %s; a redemption can be undone for %s, until %s: it is too late now",
		c, app.FormatTime(at), app.FormatUndoWindow(time.Duration(window)*time.Second), app.FormatTime(at+window))
}

// UndoResult returns an undo as recorded, with what the server said.
func (d *DB) UndoResult(ctx context.Context, eventID string) (app.Undo, error) {
	var u app.Undo
	var state, result string
	err := d.db.QueryRowContext(ctx, `SELECT c.code, u.event_id, u.undoes, r.redeemed_at, r.operator, u.at, u.operator, u.reason, u.refused, c.status,
		COALESCE(o.state, ''), COALESCE(o.result, '')
		FROM undos u JOIN codes c ON c.id = u.code_id JOIN redemptions r ON r.id = u.redemption_id LEFT JOIN outbox o ON o.event_id = u.event_id
		WHERE u.event_id = ?`, eventID).
		Scan(&u.Code, &u.EventID, &u.Undoes, &u.RedeemedAt, &u.RedeemedBy, &u.At, &u.Operator, &u.Reason, &u.ServerReason, &u.Status, &state, &result)
	if errors.Is(err, sql.ErrNoRows) {
		return app.Undo{}, app.ErrNotFound
	}
	if err != nil {
		return app.Undo{}, d.wrap(err, "cannot read the undo")
	}
	var res protocol.Result
	json.Unmarshal([]byte(result), &res)
	switch {
	case state == "pending" && res.Outcome == protocol.OutcomeUnsupported:
		u.Server, u.ServerReason = app.UndoWaitsUpgrade, res.Reason
	case state == "pending":
		u.Server = "waiting"
	case state == "rejected":
		u.Server = "refused"
	case state == "sent":
		u.Server = "undone"
	}
	return u, nil
}

// UndoWaiting reports whether an undo of c waits in the outbox.
func (d *DB) UndoWaiting(ctx context.Context, c app.Code) (bool, error) {
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM outbox WHERE code = ? AND kind = 'undo' AND state = 'pending'`, c.String()).Scan(&n)
	return n > 0, d.wrap(err, "cannot read the outbox")
}

// notHeldByServer applies a snapshot's "unused" to a label this desk has
// used by a redemption the server has heard of (none of this desk's
// waiting or refused events): the server does not hold that redemption.
//
// One of this desk's own (an event it sent, or a redemption the server
// answered online for it) was never undone by anyone else: the server lost
// it (restored from a backup), so it goes again, and the label stays used.
// Another desk's: the desk cannot tell why — undone while this desk did
// not follow the feed, or lost by a restore (its desk then sends it again,
// and the feed brings it back) — so it invents no undo: its copy follows
// the server. That redemption is dropped (kept, taken out, when an undo
// names it), and the label is unused.
func notHeldByServer(ctx context.Context, tx *sql.Tx, code string) error {
	var redemptionID, codeID int64
	var trace, outbox string
	var own bool
	// own is the row's mark, not its station's name: a row mirrored from an
	// online answer "already used at this desk" carries the name of this
	// desk and the id of the refused attempt (the soak's SQLite seed
	// 100883018: sent as a redemption, it made one the clerk was refused).
	err := tx.QueryRowContext(ctx, `SELECT r.id, r.code_id, r.trace_id, COALESCE(o.state, ''), r.own = 1
		FROM redemptions r JOIN codes c ON c.id = r.code_id LEFT JOIN outbox o ON o.event_id = r.trace_id
		WHERE c.random = substr(?, -22, 12) AND c.code = ? AND c.status = 'used' AND r.undone_at = 0`, code, code).
		Scan(&redemptionID, &codeID, &trace, &outbox, &own)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	case outbox == "pending" || outbox == "rejected":
		return nil // the server has not got it yet, or refused it
	case outbox == "sent":
		_, err := tx.ExecContext(ctx, `UPDATE outbox SET state = 'pending' WHERE event_id = ?`, trace)
		return err
	case own:
		// Answered online before this desk kept its online redemptions in
		// the outbox (see SendAgain).
		_, err := tx.ExecContext(ctx, `INSERT INTO outbox (event_id, kind, code, operator, at, offline)
			SELECT r.trace_id, 'redeem', ?, r.operator, COALESCE((SELECT s.at FROM scans s WHERE s.trace_id = r.trace_id), r.redeemed_at), 1
			FROM redemptions r WHERE r.id = ?`, code, redemptionID)
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM redemptions WHERE id = ? AND NOT EXISTS (SELECT 1 FROM undos WHERE undos.redemption_id = redemptions.id)`, redemptionID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE redemptions SET undone_at = max(redeemed_at, 1) WHERE id = ?`, redemptionID); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE codes SET status = 'unused', used_at = 0 WHERE id = ?`, codeID)
	return err
}

// undoneOnlyHere applies a snapshot's "used by event" to the undos this
// desk holds of that redemption: the server holds none (restored from a
// backup that predates it). Another desk's undo, learned from the feed,
// goes (its desk sends it again, and the feed brings it back); one of
// this desk's own that the server had answered goes to the outbox again.
// One still waiting stays: it is newer than the snapshot.
func undoneOnlyHere(ctx context.Context, tx *sql.Tx, event string) error {
	if event == "" {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE outbox SET state = 'pending'
		WHERE state = 'sent' AND kind = 'undo' AND event_id IN (SELECT event_id FROM undos WHERE undoes = ? AND refused = '')`, event); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM undos WHERE undoes = ? AND refused = ''
		AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = undos.event_id)`, event)
	return err
}

// RefusedUndos lists the undos of this desk the server refused.
func (d *DB) RefusedUndos(ctx context.Context) ([]app.Undo, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT u.event_id FROM undos u WHERE u.refused <> '' ORDER BY u.id DESC`)
	if err != nil {
		return nil, d.wrap(err, "cannot read the refused undos")
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, d.wrap(err, "cannot read the refused undos")
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, d.wrap(err, "cannot read the refused undos")
	}
	out := make([]app.Undo, 0, len(ids))
	for _, id := range ids {
		u, err := d.UndoResult(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// undoRefused records the server's refusal of an undo event of this desk
// (another desk's redemption is the one of record, or a conflict). When the
// server says the label is used, it is used here again: the undo is
// recorded as refused and the redemption stands again (a handover of the
// label anew here meanwhile is a double use the server records).
// Results of other events are left alone.
func undoRefused(ctx context.Context, tx *sql.Tx, r protocol.Result, at int64) error {
	var undoID, redemptionID, codeID int64
	var code, operator string
	err := tx.QueryRowContext(ctx, `UPDATE undos SET refused = ? WHERE event_id = ? AND refused = '' RETURNING id, redemption_id, code_id, operator,
		(SELECT code FROM codes WHERE id = undos.code_id)`, "refused by the server: "+r.Reason, r.EventID).Scan(&undoID, &redemptionID, &codeID, &operator, &code)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // not an undo
	}
	if err != nil {
		return err
	}
	if r.UsedStation != "" {
		if _, err := tx.ExecContext(ctx, `UPDATE codes SET status = 'used', used_at = ? WHERE id = ? AND status = 'unused'`, r.UsedAt, codeID); err != nil {
			return err
		}
		// The handover stands again, whatever set the label used here
		// first (the answer's status, the feed). Another standing here
		// gives way: a copy of another desk's record, or this desk's own
		// handover of the label anew after the undo, which the server,
		// holding this one, records as a double use.
		if _, err := tx.ExecContext(ctx, `UPDATE redemptions SET undone_at = max(redeemed_at, 1) WHERE code_id = ? AND id <> ? AND undone_at = 0`, codeID, redemptionID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE redemptions SET undone_at = 0 WHERE id = ?`, redemptionID); err != nil {
			return err
		}
		// The server may not hold the handover that stands again: a
		// restore lost it, and the record is now another desk's. It goes
		// again; one the server holds is answered as the duplicate it is.
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET state = 'pending'
			WHERE state = 'sent' AND kind = 'redeem' AND event_id = (SELECT trace_id FROM redemptions WHERE id = ?)`, redemptionID); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO audit (at, station, operator, action, subject, code_id, detail)
		VALUES (?, 'server', ?, 'undo_refused', ?, ?, ?)`, at, operator, code, codeID, r.Reason)
	return err
}

// undoAccepted records that the server accepted an undo event of this
// desk (it is sent again after a restore, even if a server restored to
// before it refuses it then). One a restored server had refused stands
// again: its redemption is taken back again, and the label takes the
// status of the answer (answerStatus).
func undoAccepted(ctx context.Context, tx *sql.Tx, r protocol.Result, at int64) error {
	var redemptionID, codeID, undoneAt int64
	var refused, operator, code string
	err := tx.QueryRowContext(ctx, `SELECT redemption_id, code_id, at, refused, operator, (SELECT code FROM codes WHERE id = undos.code_id)
		FROM undos WHERE event_id = ?`, r.EventID).Scan(&redemptionID, &codeID, &undoneAt, &refused, &operator, &code)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // not an undo
	}
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE undos SET accepted = 1, refused = '' WHERE event_id = ?`, r.EventID); err != nil {
		return err
	}
	if refused == "" {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE redemptions SET undone_at = ? WHERE id = ? AND undone_at = 0`, max(undoneAt, 1), redemptionID); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO audit (at, station, operator, action, subject, code_id, detail)
		VALUES (?, 'server', ?, 'undo_accepted', ?, ?, ?)`, at, operator, code, codeID, "the server holds this undo again (it was restored from a backup)")
	return err
}

// undoStatus is the status an undo leaves a label in, as the server said
// (the feed change's or the answer's "status"); an older server's undo
// always meant unused. Used is no undo's result.
func undoStatus(said string) app.Status {
	if s := carried(said, app.StatusUnused); s != app.StatusUsed {
		return s
	}
	return app.StatusUnused
}

// applyUndoChange applies an undo the server accepted (this desk's own or
// another desk's). The label takes the status the server left it in,
// whatever this desk's copy was, unless an event of this desk on it waits
// in the outbox; the redemption standing here no longer stands: the one
// the undo names, or this desk's copy of the server's record under another
// id (an online "already used" answer), recorded as undone by this undo
// (once, by its event id). A handover of this desk the server decided
// after the undo stops standing too, unrecorded: its redeem change follows.
func applyUndoChange(ctx context.Context, tx *sql.Tx, ch protocol.Change) error {
	var data struct {
		At             int64  `json:"at"`
		Operator       string `json:"operator"`
		EventID        string `json:"event_id"`
		Undoes         string `json:"undoes"`
		Reason         string `json:"reason"`
		Status         string `json:"status"`
		DisabledReason string `json:"disabled_reason"`
	}
	if err := json.Unmarshal([]byte(ch.Data), &data); err != nil {
		return nil // not ours to judge
	}
	status := undoStatus(data.Status)
	codeID, found, err := deskLabel(ctx, tx, ch.Code)
	if err != nil || !found {
		return err
	}
	var known int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM undos WHERE event_id = ?`, data.EventID).Scan(&known); err != nil {
		return err
	}
	waits, err := waitsHere(ctx, tx, ch.Code)
	if err != nil {
		return err
	}
	row, standing, err := standingRedemption(ctx, tx, codeID)
	if err != nil {
		return err
	}
	if standing && (row.trace == data.Undoes || !waits) {
		if _, err := tx.ExecContext(ctx, `UPDATE redemptions SET undone_at = ? WHERE id = ?`, max(data.At, 1), row.id); err != nil {
			return err
		}
		if known == 0 && (row.trace == data.Undoes || !row.own) {
			u := app.Undo{Code: ch.Code, EventID: data.EventID, Undoes: data.Undoes, RedeemedAt: row.redeemedAt, RedeemedBy: row.operator,
				At: data.At, Operator: data.Operator, Reason: data.Reason}
			if err := insertUndo(ctx, tx, row.id, codeID, u, ch.Station); err != nil {
				return err
			}
		}
	}
	if waits {
		return nil
	}
	return settleStatus(ctx, tx, codeID, status, data.DisabledReason, 0, data.At)
}
