package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"qrdesk/app"
	"qrdesk/entitlement"
	"qrdesk/protocol"
)

// maxRawLen bounds the stored copy of what was typed.
const maxRawLen = 200

// escapeRaw makes typed input safe to store and show: quoted ASCII with
// control characters escaped, truncated.
func escapeRaw(raw string) string {
	if len(raw) > maxRawLen {
		raw = raw[:maxRawLen]
	}
	return strconv.QuoteToASCII(raw)
}

// Redeem is the one conditional UPDATE (see app.Store).
func (d *DB) Redeem(ctx context.Context, c app.Code, a app.Attempt) (app.Verdict, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return app.Verdict{}, d.wrap(err, "cannot redeem %s", c)
	}
	defer tx.Rollback()

	v := app.Verdict{Code: c.String()}
	// Decide with a single guarded UPDATE: it changes the row only while the
	// code is unused and not expired, so of any number of concurrent scans
	// exactly one sees a row come back.
	rows, err := tx.QueryContext(ctx, `UPDATE codes SET status = 'used', used_at = ?1
		WHERE random = ?2 AND code = ?3 AND status = 'unused' AND (expire_at = 0 OR expire_at > ?4)
		RETURNING id`, a.At, c.Random, c.String(), a.ExpiryTime())
	if err != nil {
		return app.Verdict{}, d.wrap(err, "cannot redeem %s", c)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return app.Verdict{}, d.wrap(err, "cannot redeem %s", c)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return app.Verdict{}, d.wrap(err, "cannot redeem %s", c)
	}
	v.Affected = len(ids)

	var codeID sql.NullInt64
	switch len(ids) {
	case 1:
		codeID = sql.NullInt64{Int64: ids[0], Valid: true}
		// A label of an entitlement another label of which this desk
		// knows was used: refused, as at the server (store/replace.go).
		used, double, err := entitlementUsedHere(ctx, tx, ids[0])
		if err != nil {
			return app.Verdict{}, d.wrap(err, "cannot redeem %s", c)
		}
		if double {
			if _, err := tx.ExecContext(ctx, `UPDATE codes SET status = 'unused', used_at = 0 WHERE id = ?`, ids[0]); err != nil {
				return app.Verdict{}, d.wrap(err, "cannot redeem %s", c)
			}
			v = app.Verdict{Code: c.String(), Outcome: app.OutcomeAlreadyUsed, Status: app.StatusUnused, UsedCode: used.Code,
				UsedAt: used.UsedAt, UsedStation: used.UsedStation, UsedOperator: used.UsedOperator, Reason: entitlement.SiblingUsedReason(c.String(), used)}
			break
		}
		v.Outcome, v.Status = app.OutcomeRedeemed, app.StatusUsed
		v.UsedAt, v.UsedStation, v.UsedOperator = a.At, a.Station, a.Operator
		if _, err := tx.ExecContext(ctx, `INSERT INTO redemptions (code_id, station, operator, redeemed_at, trace_id, own) VALUES (?, ?, ?, ?, ?, 1)`,
			ids[0], a.Station, a.Operator, a.At, a.TraceID); err != nil {
			return app.Verdict{}, d.wrap(err, "cannot redeem %s", c)
		}
		// Decided here: the central server hears of it through the outbox.
		if err := addOutbox(ctx, tx, a.TraceID, protocol.KindRedeem, c.String(), a.Operator, a.At, ""); err != nil {
			return app.Verdict{}, d.wrap(err, "cannot redeem %s", c)
		}
	case 0:
		rec, err := lookup(ctx, tx, c)
		if errors.Is(err, app.ErrNotFound) && a.AcceptUnknown {
			id, err := insertUnknown(ctx, tx, c, a)
			if err != nil {
				return app.Verdict{}, d.wrap(err, "cannot redeem %s", c)
			}
			codeID = sql.NullInt64{Int64: id, Valid: true}
			v.Outcome, v.Status, v.Affected = app.OutcomeRedeemed, app.StatusUsed, 1
			v.UsedAt, v.UsedStation, v.UsedOperator = a.At, a.Station, a.Operator
			v.Reason = "accepted offline: issued at another desk and not known here yet; the server will confirm"
			break
		}
		if errors.Is(err, app.ErrNotFound) {
			v.Outcome, v.Reason = app.OutcomeUnknown, "correctly signed but not in this station's database"
			break
		}
		if err != nil {
			return app.Verdict{}, d.wrap(err, "cannot redeem %s", c)
		}
		codeID = sql.NullInt64{Int64: rec.ID, Valid: true}
		if rec.Status == app.StatusUsed {
			var mine int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM redemptions WHERE code_id = ? AND trace_id = ?`, rec.ID, a.TraceID).Scan(&mine); err != nil {
				return app.Verdict{}, d.wrap(err, "cannot redeem %s", c)
			}
			if mine > 0 {
				// The server redeemed this very scan (its answer was late or
				// lost, and the change feed brought it here first).
				v.Outcome, v.Status = app.OutcomeRedeemed, app.StatusUsed
				v.UsedAt, v.UsedStation, v.UsedOperator = rec.UsedAt, rec.UsedStation, rec.UsedOperator
				break
			}
		}
		why := app.VerdictFor(rec, a.ExpiryTime())
		why.Affected = 0
		if why.Outcome == app.OutcomeValid {
			return app.Verdict{}, app.Errorf(app.KindInternal, "code %s is unused but could not be redeemed", c)
		}
		// A label past its expiry by this desk's clock is refused, but stays
		// unused here: the clock may be wrong (a desk days ahead), and a
		// label stored expired would be refused for good, after the clock is
		// fixed too, though the server and every other desk hold it unused.
		// It becomes expired only by a day's close or the server's word.
		v = why
		if app.JustScanned(v, a) {
			v.Outcome = app.OutcomeJustScanned // the same desk's scan a moment ago
		}
	default:
		return app.Verdict{}, app.Errorf(app.KindInternal, "redeeming %s changed %d rows", c, len(ids))
	}
	if err := insertScan(ctx, tx, a, v.Outcome, codeID); err != nil {
		return app.Verdict{}, d.wrap(err, "cannot redeem %s", c)
	}
	if err := tx.Commit(); err != nil {
		return app.Verdict{}, d.wrap(err, "cannot redeem %s", c)
	}
	return v, nil
}

// LogScan records an attempt that was refused before any lookup.
func (d *DB) LogScan(ctx context.Context, a app.Attempt, v app.Verdict) error {
	_, err := d.db.ExecContext(ctx, `INSERT INTO scans (trace_id, raw, code, outcome, station, operator, at, by_server) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		a.TraceID, escapeRaw(a.Raw), truncate(a.Code, maxRawLen), string(v.Outcome), a.Station, a.Operator, a.At, a.ByServer)
	return d.wrap(err, "cannot log the scan")
}

func insertScan(ctx context.Context, tx *sql.Tx, a app.Attempt, o app.Outcome, codeID sql.NullInt64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO scans (trace_id, raw, code, code_id, outcome, station, operator, at, by_server) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.TraceID, escapeRaw(a.Raw), truncate(a.Code, maxRawLen), codeID, string(o), a.Station, a.Operator, a.At, a.ByServer)
	if err != nil {
		return fmt.Errorf("log scan: %w", err)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func addOutbox(ctx context.Context, tx *sql.Tx, eventID string, kind protocol.Kind, code, operator string, at int64, reason string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO outbox (event_id, kind, code, operator, at, reason) VALUES (?, ?, ?, ?, ?, ?)`,
		eventID, kind, code, operator, at, reason)
	return err
}

// insertUnknown records a correctly signed code this station had never seen
// as used here, flagged, with its redemption and outbox event.
func insertUnknown(ctx context.Context, tx *sql.Tx, c app.Code, a app.Attempt) (int64, error) {
	id, err := insertForeignCode(ctx, tx, c, "unknown, accepted offline", app.StatusUsed, a.At)
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO redemptions (code_id, station, operator, redeemed_at, trace_id, own) VALUES (?, ?, ?, ?, ?, 1)`,
		id, a.Station, a.Operator, a.At, a.TraceID); err != nil {
		return 0, err
	}
	return id, addOutbox(ctx, tx, a.TraceID, protocol.KindRedeem, c.String(), a.Operator, a.At, "unknown here, accepted offline")
}

// insertForeignCode records a code of another desk that this desk meets
// before its batch arrived, in the placeholder batch named by source (the
// batch's own entry in the feed adds nothing later: the row exists).
func insertForeignCode(ctx context.Context, tx *sql.Tx, c app.Code, source string, status app.Status, usedAt int64) (int64, error) {
	batch, err := remoteBatch(ctx, tx, source)
	if err != nil {
		return 0, err
	}
	var stationID, serial any
	if c.HasSerial() {
		stationID, serial = c.Station, c.Serial
	}
	var id int64
	err = tx.QueryRowContext(ctx, `INSERT INTO codes (sig, serial_len, code_date, random, prefix, label_date, station_id, serial, batch_id, key_id, status, used_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0) RETURNING id`,
		c.Signature, serialLen(c), codeDate(c), c.Random, c.Prefix, c.LabelDate(), stationID, serial, batch, string(c.KeyID), string(status), usedAt).Scan(&id)
	return id, err
}
