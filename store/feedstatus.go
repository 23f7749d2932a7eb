package store

import (
	"context"
	"database/sql"
	"errors"

	"qrdesk/app"
	"qrdesk/protocol"
)

// The desk's copy of a label is what the server decided plus this desk's
// own pending events: every feed change that carries the label's resulting
// status, and every answer to this desk's events that does, sets the copy
// to that status, whatever it was, unless an event of this desk on the
// label still waits in the outbox (it is newer than the server's status;
// its answer carries the status after it). The history follows: a label
// the server says is not used has no standing redemption here, and a used
// one stands on the server's redemption of record (unless this desk's own
// handover of it is the standing one: a double use the server records as a
// conflict).

// deskLabel finds a label of this desk's copy by its random part (indexed).
func deskLabel(ctx context.Context, tx *sql.Tx, code string) (int64, bool, error) {
	c, err := app.Parse(code)
	if err != nil {
		return 0, false, nil // not a code this desk can hold
	}
	var id int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM codes WHERE random = ? AND code = ?`, c.Random, code).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// waitsHere reports whether an event of this desk on code waits in the outbox.
func waitsHere(ctx context.Context, tx *sql.Tx, code string) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM outbox WHERE state = 'pending' AND code = ?`, code).Scan(&n)
	return n > 0, err
}

// standingRow is a label's standing redemption at this desk; own is set
// when it is an event of this desk's outbox (an offline handover here).
type standingRow struct {
	id, redeemedAt  int64
	trace, operator string
	own             bool
}

func standingRedemption(ctx context.Context, tx *sql.Tx, codeID int64) (standingRow, bool, error) {
	var r standingRow
	err := tx.QueryRowContext(ctx, `SELECT r.id, r.redeemed_at, r.trace_id, r.operator,
		EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = r.trace_id)
		FROM redemptions r WHERE r.code_id = ? AND r.undone_at = 0`, codeID).Scan(&r.id, &r.redeemedAt, &r.trace, &r.operator, &r.own)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, err
}

// settleStatus sets this desk's copy of a label to the server's status.
// Not used: the standing redemption, if any, no longer stands (at at) and
// the used time goes; a disabled label keeps its reason when the server
// gave none. Used: the label is used (at usedAt when given); the rows are
// the redeem change's business.
func settleStatus(ctx context.Context, tx *sql.Tx, codeID int64, status app.Status, disabledReason string, usedAt, at int64) error {
	if status == app.StatusUsed {
		_, err := tx.ExecContext(ctx, `UPDATE codes SET status = 'used', used_at = CASE WHEN ?1 > 0 THEN ?1 ELSE used_at END WHERE id = ?2`, usedAt, codeID)
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE redemptions SET undone_at = ? WHERE code_id = ? AND undone_at = 0`, max(at, 1), codeID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE codes SET status = ?1, used_at = 0,
		disabled_reason = CASE WHEN ?1 <> 'disabled' THEN '' WHEN ?2 <> '' THEN ?2 ELSE disabled_reason END WHERE id = ?3`,
		string(status), disabledReason, codeID)
	return err
}

// knownStatus is the status s names, if it is one.
func knownStatus(s string) (app.Status, bool) {
	for _, st := range app.Statuses {
		if string(st) == s {
			return st, true
		}
	}
	return "", false
}

// applyStatusChange applies a disable, enable or expire change that
// carries the label's resulting status.
func applyStatusChange(ctx context.Context, tx *sql.Tx, code string, status app.Status, reason string, at int64) error {
	id, ok, err := deskLabel(ctx, tx, code)
	if err != nil || !ok {
		return err
	}
	if waits, err := waitsHere(ctx, tx, code); err != nil || waits {
		return err
	}
	return settleStatus(ctx, tx, id, status, reason, 0, at)
}

// applyRedeemChange applies a redemption the server recorded, with the
// status it carries (used): the label is used here, on that redemption,
// whatever this desk's copy was, unless this desk has undone that very
// redemption (its undo is on its way, or answered: the server's undo
// change follows). A handover of this desk that stands here stays (the
// server records the double use); a copy of another record (what an online
// "already used" answer told this desk, under the scan's id) becomes the
// record the server names.
func applyRedeemChange(ctx context.Context, tx *sql.Tx, ch protocol.Change, eventID, operator string, at int64) error {
	id, ok, err := deskLabel(ctx, tx, ch.Code)
	if err != nil || !ok {
		return err
	}
	// Only this desk's own undo holds the redemption back: another desk's,
	// learned from the feed, came before this change in the feed's order,
	// so the server holds the redemption again (restored from a backup
	// that predates the undo).
	var undone int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM undos u WHERE u.undoes = ? AND u.code_id = ? AND u.refused = ''
		AND EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = u.event_id)`, eventID, id).Scan(&undone); err != nil || undone > 0 {
		return err
	}
	row, standing, err := standingRedemption(ctx, tx, id)
	if err != nil {
		return err
	}
	if standing && row.own && row.trace != eventID {
		_, err := tx.ExecContext(ctx, `UPDATE codes SET status = 'used' WHERE id = ?`, id)
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE codes SET status = 'used', used_at = ? WHERE id = ?`, at, id); err != nil {
		return err
	}
	trace, err := feedTrace(ctx, tx, eventID, id, ch.Code)
	if err != nil {
		return err
	}
	var record int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM redemptions WHERE code_id = ? AND trace_id IN (?, ?)`, id, eventID, trace).Scan(&record)
	switch {
	case err == nil:
		if standing && row.id != record {
			if _, err := tx.ExecContext(ctx, `UPDATE redemptions SET undone_at = ? WHERE id = ?`, max(at, 1), row.id); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE redemptions SET undone_at = 0, station = ?, operator = ?, redeemed_at = ? WHERE id = ?`, ch.Station, operator, at, record)
		return err
	case !errors.Is(err, sql.ErrNoRows):
		return err
	case standing:
		// A copy of the record under another id: it becomes the record.
		_, err = tx.ExecContext(ctx, `UPDATE redemptions SET trace_id = ?, station = ?, operator = ?, redeemed_at = ? WHERE id = ?`, trace, ch.Station, operator, at, row.id)
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO redemptions (code_id, station, operator, redeemed_at, trace_id, own) VALUES (?, ?, ?, ?, ?, `+ownEvent+`)`,
		id, ch.Station, operator, at, trace, trace, ch.Station, ch.Station)
	return err
}

// feedTrace is the trace id this desk keeps a feed redemption of label
// codeID (code) under: its event id, unless a redemption of another label
// holds that id here. Event ids are random, but the feed shows them to
// every desk, and on a server restored from a backup a misbehaving desk
// (or a stolen token) can send an event of its own under one of them
// (design.md, "Event identity"): that redemption is kept under its id and
// label, so it neither takes over nor revives the other label's record.
func feedTrace(ctx context.Context, tx *sql.Tx, eventID string, codeID int64, code string) (string, error) {
	var other int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM redemptions WHERE trace_id = ? AND code_id <> ?`, eventID, codeID).Scan(&other)
	if err != nil || other == 0 {
		return eventID, err
	}
	return eventID + "/" + code, nil
}

// answerStatus applies the status the server's answer to an event of this
// desk carries (a refused disable or enable, an undo, an expiry the server
// did not make): the desk learns at once what the label is, unless another
// event of this desk on it still waits (its answer comes later).
func answerStatus(ctx context.Context, tx *sql.Tx, r protocol.Result, at int64) error {
	status, ok := knownStatus(r.Status)
	if !ok {
		return nil
	}
	var code string
	err := tx.QueryRowContext(ctx, `SELECT code FROM outbox WHERE event_id = ?`, r.EventID).Scan(&code)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	id, found, err := deskLabel(ctx, tx, code)
	if err != nil || !found {
		return err
	}
	if waits, err := waitsHere(ctx, tx, code); err != nil || waits {
		return err
	}
	if status == app.StatusUsed {
		// Used at the server: a standing redemption here says by whom
		// (this desk's, or one the feed brought); the feed brings the
		// record otherwise.
		return settleStatus(ctx, tx, id, status, "", r.UsedAt, at)
	}
	reason := ""
	if status == app.StatusDisabled && r.Outcome == protocol.OutcomeDisabled {
		reason = r.Reason
	}
	return settleStatus(ctx, tx, id, status, reason, 0, at)
}
