package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"qrdesk/app"
	"qrdesk/entitlement"
	"qrdesk/protocol"
)

// querier is what *sql.DB and *sql.Tx share, so helpers run in or out of a
// transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// recordColumns selects a code with its first (and only) redemption.
const (
	recordSelect = `SELECT c.id, c.code, c.batch_id, c.label_date, COALESCE(c.serial, 0), c.type, c.ref, c.key_id,
	c.status, c.expire_at, c.created_at, c.used_at, COALESCE(r.station, ''), COALESCE(r.operator, ''),
	c.disabled_reason, c.print_count`
	recordJoin    = ` LEFT JOIN redemptions r ON r.code_id = c.id AND r.undone_at = 0`
	recordColumns = recordSelect + ` FROM codes c` + recordJoin
)

// byCode is the condition "the label whose printed code is ?", answered
// from the index of the random part: a code's random part is its 12
// characters before the key id and signature (…-RANDOM12RAND-KSIGNATUR),
// so the two agree on every stored code, and `code = ?` alone read the
// whole table (half a second of CPU at two million codes, for each change
// the feed brought). Its two arguments are the code, twice.
const byCode = `random = substr(?, -22, 12) AND code = ?`

// serialLen and codeDate are a code's serial_len and code_date: the
// serial's printed width and the code's date as the number YYMMDD, NULL
// for a code without a serial. The stored row holds a code's fields and
// signature; its printed form, the column code, is computed from them
// (migration 0022).
func serialLen(c app.Code) any {
	if !c.HasSerial() {
		return nil
	}
	return c.SerialLen
}

func codeDate(c app.Code) any {
	if !c.HasSerial() {
		return nil
	}
	d, err := strconv.Atoi(c.Date)
	if err != nil {
		return nil // not a date: the computed code then reads NULL, never another code
	}
	return d
}

type scanner interface{ Scan(dest ...any) error }

func scanRecord(s scanner) (app.CodeRecord, error) {
	var r app.CodeRecord
	err := s.Scan(&r.ID, &r.Code, &r.BatchID, &r.LabelDate, &r.Serial, &r.Type, &r.Ref, &r.KeyID,
		&r.Status, &r.ExpireAt, &r.CreatedAt, &r.UsedAt, &r.UsedStation, &r.UsedOperator,
		&r.DisabledReason, &r.PrintCount)
	return r, err
}

func lookup(ctx context.Context, q querier, c app.Code) (app.CodeRecord, error) {
	rec, err := scanRecord(q.QueryRowContext(ctx, recordColumns+` WHERE c.random = ? AND c.code = ?`, c.Random, c.String()))
	if errors.Is(err, sql.ErrNoRows) {
		return app.CodeRecord{}, app.ErrNotFound
	}
	return rec, err
}

// Lookup returns the stored record of c, or app.ErrNotFound.
// An unused label says which label of its entitlement this desk knows was
// used, if one was (a double use, refused as at the server).
func (d *DB) Lookup(ctx context.Context, c app.Code) (app.CodeRecord, error) {
	rec, err := lookup(ctx, d.db, c)
	if errors.Is(err, app.ErrNotFound) {
		return rec, err
	}
	if err == nil && rec.Status == app.StatusUnused {
		var used entitlement.Sibling
		var double bool
		if used, double, err = entitlementUsedHere(ctx, d.db, rec.ID); double {
			rec.EntitlementUsed = used.Code
		}
	}
	return rec, d.wrap(err, "cannot look up %s", c)
}

// SetDisabled moves a code between unused and disabled (see app.Store).
func (d *DB) SetDisabled(ctx context.Context, c app.Code, disable bool, reason string, actor app.Actor) (app.CodeRecord, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return app.CodeRecord{}, d.wrap(err, "cannot change %s", c)
	}
	defer tx.Rollback()
	now := d.now().Unix()
	// An enabled label is unused again; past its expiry by this desk's
	// clock it is refused as expired at a scan, but not stored so (the
	// clock may be wrong: see Redeem).
	action, query := protocol.KindEnable, `UPDATE codes SET status = 'unused',
		disabled_reason = '' WHERE random = ?2 AND code = ?3 AND status = 'disabled' RETURNING id`
	if disable {
		action, query = protocol.KindDisable, `UPDATE codes SET status = 'disabled', disabled_reason = ?4
		WHERE random = ?2 AND code = ?3 AND status = 'unused' RETURNING id`
	}
	var id int64
	err = tx.QueryRowContext(ctx, query, now, c.Random, c.String(), reason).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		rec, lerr := lookup(ctx, tx, c)
		if errors.Is(lerr, app.ErrNotFound) {
			return app.CodeRecord{}, app.Errorf(app.KindNotFound, "code %s is not in this station's database", c)
		}
		if lerr != nil {
			return app.CodeRecord{}, d.wrap(lerr, "cannot change %s", c)
		}
		return app.CodeRecord{}, app.Errorf(app.KindConflict, "code %s cannot be %sd: it is %s", c, action, rec.Status)
	}
	if err != nil {
		return app.CodeRecord{}, d.wrap(err, "cannot change %s", c)
	}
	if !disable {
		if err := oneValidHere(ctx, tx, id, c); err != nil {
			return app.CodeRecord{}, err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO audit (at, station, operator, action, subject, code_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		now, actor.Station, actor.Operator, action, c.String(), id, reason); err != nil {
		return app.CodeRecord{}, d.wrap(err, "cannot change %s", c)
	}
	if err := addOutbox(ctx, tx, app.NewTraceID(), action, c.String(), actor.Operator, now, reason); err != nil {
		return app.CodeRecord{}, d.wrap(err, "cannot change %s", c)
	}
	rec, err := lookup(ctx, tx, c)
	if err != nil {
		return app.CodeRecord{}, d.wrap(err, "cannot change %s", c)
	}
	return rec, d.wrap(tx.Commit(), "cannot change %s", c)
}

// searchSQL builds the FROM and WHERE of a search; every value is a bound
// parameter. A text search starts from the (few) matching ids, so SQLite
// looks those rows up instead of walking the whole table in id order.
func (d *DB) searchSQL(ctx context.Context, q app.SearchQuery) (string, []any, error) {
	from := recordColumns
	var conds []string
	var args []any
	if q.Exact != nil {
		conds = append(conds, `c.random = ? AND c.code = ?`)
		args = append(args, q.Exact.Random, q.Exact.String())
	} else if text := strings.TrimSpace(q.Text); text != "" {
		part := app.Compact(app.Normalize(text))
		// "ref <> ''" lets SQLite use the partial index on ref.
		alts := []string{`SELECT id FROM codes WHERE ref = ? AND ref <> ''`}
		args = append(args, text)
		// The labels of the batches whose ref, or whose order's customer,
		// holds the text (searchref.go).
		batches, err := d.refs.find(ctx, d.db, text)
		if err != nil {
			return "", nil, err
		}
		if len(batches) > 0 {
			list, _ := json.Marshal(batches)
			alts = append(alts, `SELECT c3.id FROM json_each(?) AS mb CROSS JOIN codes c3 ON c3.batch_id = mb.value`)
			args = append(args, string(list))
		}
		if part != "" {
			ids, err := d.randoms.find(ctx, d.db, part, searchIDLimit)
			if err != nil {
				return "", nil, err
			}
			idList, _ := json.Marshal(ids)
			alts = append(alts, `SELECT value FROM json_each(?)`)
			args = append(args, string(idList))
		}
		if app.IsSerial(part) {
			alts = append(alts, `SELECT id FROM codes WHERE serial = ?`)
			args = append(args, part)
		}
		// The serial as printed, with its station letter ("A0007").
		if station, serial, ok := app.PrintedSerial(part); ok {
			alts = append(alts, `SELECT id FROM codes WHERE serial = ? AND station_id = ?`)
			args = append(args, serial, station)
		}
		from = recordSelect + ` FROM (` + strings.Join(alts, " UNION ") + `) AS m CROSS JOIN codes c ON c.id = m.id` + recordJoin
	}
	if q.Status != "" {
		conds = append(conds, `c.status = ?`)
		args = append(args, string(q.Status))
	}
	if q.LabelDate != "" {
		conds = append(conds, `c.label_date = ?`)
		args = append(args, q.LabelDate)
	}
	if q.BatchID != 0 {
		conds = append(conds, `c.batch_id = ?`)
		args = append(args, q.BatchID)
	}
	if len(conds) == 0 {
		return from, args, nil
	}
	return from + " WHERE " + strings.Join(conds, " AND "), args, nil
}

// searchIDLimit bounds how many partial-code matches feed one search.
const searchIDLimit = 10000

// Search returns codes matching q, newest first.
func (d *DB) Search(ctx context.Context, q app.SearchQuery) ([]app.CodeRecord, error) {
	query, args, err := d.searchSQL(ctx, q)
	if err != nil {
		return nil, d.wrap(err, "cannot search codes")
	}
	args = append(args, q.Limit, q.Offset)
	order := ` ORDER BY c.id DESC`
	if q.Oldest {
		order = ` ORDER BY c.id`
	}
	return d.records(ctx, query+order+` LIMIT ? OFFSET ?`, args...)
}

func (d *DB) records(ctx context.Context, query string, args ...any) ([]app.CodeRecord, error) {
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, d.wrap(err, "cannot search codes")
	}
	defer rows.Close()
	var out []app.CodeRecord
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, d.wrap(err, "cannot search codes")
		}
		out = append(out, r)
	}
	return out, d.wrap(rows.Err(), "cannot search codes")
}

// CodeHistory returns scans and audit entries of one code, oldest first.
func (d *DB) CodeHistory(ctx context.Context, codeID int64) ([]app.Event, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT at, outcome, station, operator, '' FROM scans WHERE code_id = ?1
		UNION ALL SELECT at, action, station, operator, detail FROM audit WHERE code_id = ?1 ORDER BY 1`, codeID)
	if err != nil {
		return nil, d.wrap(err, "cannot read the history")
	}
	defer rows.Close()
	var out []app.Event
	for rows.Next() {
		var e app.Event
		if err := rows.Scan(&e.At, &e.Kind, &e.Station, &e.Operator, &e.Detail); err != nil {
			return nil, d.wrap(err, "cannot read the history")
		}
		out = append(out, e)
	}
	return out, d.wrap(rows.Err(), "cannot read the history")
}

// ExpireDue marks unused codes past their expiry as expired.
func (d *DB) ExpireDue(ctx context.Context, now int64) (int64, error) {
	res, err := d.db.ExecContext(ctx, `UPDATE codes SET status = 'expired' WHERE status = 'unused' AND expire_at <> 0 AND expire_at <= ?`, now)
	if err != nil {
		return 0, d.wrap(err, "cannot expire codes")
	}
	n, err := res.RowsAffected()
	return n, d.wrap(err, "cannot expire codes")
}

// ExpireWaiting reports whether an expire event of c waits in the outbox.
func (d *DB) ExpireWaiting(ctx context.Context, c app.Code) (bool, error) {
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM outbox WHERE code = ? AND kind = ? AND state = 'pending'`, c.String(), protocol.KindExpire).Scan(&n)
	return n > 0, d.wrap(err, "cannot read the outbox")
}

// KeyIDCounts returns how many codes each key id signed.
func (d *DB) KeyIDCounts(ctx context.Context) (map[byte]int, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT key_id, count(*) FROM codes GROUP BY key_id`)
	if err != nil {
		return nil, d.wrap(err, "cannot count the codes by key")
	}
	defer rows.Close()
	out := map[byte]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		if len(id) == 1 {
			out[id[0]] = n
		}
	}
	return out, rows.Err()
}
