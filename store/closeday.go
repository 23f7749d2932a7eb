package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"qrdesk/app"
)

var _ app.DayCloseStore = (*DB)(nil)

// DayFigures counts one day's figures (see app.DayCloseStore).
func (d *DB) DayFigures(ctx context.Context, day, station string, from, to int64) (app.DayFigures, error) {
	f, err := dayFigures(ctx, d.db, day, station, from, to)
	return f, d.wrap(err, "cannot count the day's figures")
}

// CloseDay closes a day in one transaction (see app.DayCloseStore).
func (d *DB) CloseDay(ctx context.Context, day string, from, to int64, expireUnused bool, actor app.Actor, at int64, finish func(app.DayFigures) app.DayFigures) (app.DayClose, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return app.DayClose{}, d.wrap(err, "cannot close the day")
	}
	defer tx.Rollback()
	dc := app.DayClose{ClosedAt: at, Station: actor.Station, Operator: actor.Operator}
	if expireUnused {
		n, err := expireDay(ctx, tx, day, actor, at)
		if err != nil {
			return app.DayClose{}, d.wrap(err, "cannot expire the day's unused labels")
		}
		dc.ExpiredNow = n
	}
	if dc.Figures, err = dayFigures(ctx, tx, day, actor.Station, from, to); err != nil {
		return app.DayClose{}, d.wrap(err, "cannot close the day")
	}
	dc.Figures = finish(dc.Figures)
	var before string
	err = tx.QueryRowContext(ctx, `SELECT closed_at, figures FROM day_closes WHERE date = ? ORDER BY id DESC LIMIT 1`, day).Scan(&dc.PreviousAt, &before)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return app.DayClose{}, d.wrap(err, "cannot close the day")
	default:
		var prev app.DayFigures
		if err := json.Unmarshal([]byte(before), &prev); err != nil {
			return app.DayClose{}, d.wrap(err, "cannot read the previous close of %s", day)
		}
		dc.Previous = &prev
	}
	figures, err := json.Marshal(dc.Figures)
	if err != nil {
		return app.DayClose{}, d.wrap(err, "cannot close the day")
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO day_closes (date, closed_at, station, operator, expired, figures) VALUES (?, ?, ?, ?, ?, ?)`,
		day, at, actor.Station, actor.Operator, dc.ExpiredNow, string(figures)); err != nil {
		return app.DayClose{}, d.wrap(err, "cannot close the day")
	}
	return dc, d.wrap(tx.Commit(), "cannot close the day")
}

// dayFigures counts the figures of the desk named station in or out of a
// transaction. The first six figures are counted exactly as Stats counts
// them, so the close and 'stats' agree.
func dayFigures(ctx context.Context, q querier, day, station string, from, to int64) (app.DayFigures, error) {
	f := app.DayFigures{Date: day, Refused: map[app.Outcome]int{}, RedeemedByOperator: map[string]int{}}
	for _, o := range app.RefusalOutcomes {
		f.Refused[o] = 0
	}
	err := q.QueryRowContext(ctx, `SELECT
		(SELECT COALESCE(SUM(count), 0) FROM batches WHERE created_at >= ?1 AND created_at < ?2),
		(SELECT count(DISTINCT p.code_id) FROM print_jobs j JOIN print_job_codes p ON p.job_id = j.id
			WHERE j.status = 'done' AND j.finished_at >= ?1 AND j.finished_at < ?2),
		(SELECT count(*) FROM scans WHERE at >= ?1 AND at < ?2),
		(SELECT count(*) FROM redemptions r WHERE r.redeemed_at >= ?1 AND r.redeemed_at < ?2 AND `+ownRedemption+`),
		`+unusedOfDay+`,
		(SELECT count(*) FROM print_jobs WHERE status = 'done' AND finished_at >= ?1 AND finished_at < ?2),
		(SELECT count(*) FROM print_jobs WHERE status = 'done' AND reprint = 1 AND finished_at >= ?1 AND finished_at < ?2),
		(SELECT count(*) FROM audit WHERE action IN ('disable', 'replace') AND at >= ?1 AND at < ?2),
		(SELECT count(*) FROM codes WHERE label_date = ?3 AND status = 'expired'),
		(SELECT count(*) FROM undos WHERE refused = '' AND at >= ?1 AND at < ?2 AND station = ?4),
		(SELECT count(*) FROM outbox o WHERE o.kind = 'redeem' AND o.at >= ?1 AND o.at < ?2 AND `+ownDoubleUse+`)`, from, to, day, station).
		Scan(&f.Issued, &f.Printed, &f.Scans, &f.Redeemed, &f.Unused, &f.PrintJobs, &f.Reprints, &f.Disabled, &f.Expired, &f.Undone, &f.Conflicts)
	if err != nil {
		return app.DayFigures{}, err
	}
	if err := eachRow(ctx, q, func(rows *sql.Rows) error {
		var o string
		var byServer bool
		var n int
		if err := rows.Scan(&o, &byServer, &n); err != nil {
			return err
		}
		if app.Outcome(o) == app.OutcomeJustScanned {
			f.JustScanned += n // not a refusal
			return nil
		}
		f.Refused[app.Outcome(o)] += n
		if !byServer {
			f.RefusedHere.Add(app.Outcome(o), n)
		}
		return nil
	}, `SELECT outcome, by_server, count(*) FROM scans WHERE at >= ? AND at < ? AND outcome <> 'redeemed' GROUP BY outcome, by_server`, from, to); err != nil {
		return app.DayFigures{}, err
	}
	if err := eachRow(ctx, q, func(rows *sql.Rows) error {
		var op string
		var n int
		if err := rows.Scan(&op, &n); err != nil {
			return err
		}
		f.RedeemedByOperator[op] = n
		return nil
	}, `SELECT r.operator, count(*) FROM redemptions r WHERE r.redeemed_at >= ?1 AND r.redeemed_at < ?2 AND `+ownRedemption+` GROUP BY r.operator`, from, to); err != nil {
		return app.DayFigures{}, err
	}
	// Quarter hours: the service sorts them into its zone's hours.
	err = eachRow(ctx, q, func(rows *sql.Rows) error {
		var tc app.TimeCount
		if err := rows.Scan(&tc.At, &tc.Count); err != nil {
			return err
		}
		f.RedeemedQuarters = append(f.RedeemedQuarters, tc)
		return nil
	}, `SELECT r.redeemed_at - r.redeemed_at % 900, count(*) FROM redemptions r WHERE r.redeemed_at >= ?1 AND r.redeemed_at < ?2 AND `+ownRedemption+` GROUP BY 1 ORDER BY 1`, from, to)
	return f, err
}

// eachRow runs query and calls fn for every row.
func eachRow(ctx context.Context, q querier, fn func(*sql.Rows) error, query string, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
