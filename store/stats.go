package store

import (
	"context"

	"qrdesk/app"
)

// The labels of a day (?3) that this desk issued, whenever it issued them:
// its own batches of that label date (the labels other desks issued come
// in a placeholder batch dated 'remote'). issuedForDay counts them all,
// unusedOfDay those still unused, so the two speak of the same labels.
const (
	issuedForDay = `(SELECT COALESCE(SUM(count), 0) FROM batches WHERE label_date = ?3)`
	unusedOfDay  = `(SELECT count(*) FROM codes WHERE label_date = ?3 AND status = 'unused'
		AND batch_id IN (SELECT id FROM batches WHERE label_date = ?3))`
)

// Stats counts one period's figures of the desk named station (the
// redemptions and undos made there; see dayfigures.go). "unused" and
// "issued for the day" count the labels of day's date (see above).
func (d *DB) Stats(ctx context.Context, day, station string, from, to int64) (app.Stats, error) {
	st := app.Stats{Refused: map[app.Outcome]int{}}
	for _, o := range app.RefusalOutcomes {
		st.Refused[o] = 0
	}
	err := d.db.QueryRowContext(ctx, `SELECT
		(SELECT COALESCE(SUM(count), 0) FROM batches WHERE created_at >= ?1 AND created_at < ?2),
		(SELECT count(DISTINCT p.code_id) FROM print_jobs j JOIN print_job_codes p ON p.job_id = j.id
			WHERE j.status = 'done' AND j.finished_at >= ?1 AND j.finished_at < ?2),
		(SELECT count(*) FROM scans WHERE at >= ?1 AND at < ?2),
		(SELECT count(*) FROM redemptions r WHERE r.redeemed_at >= ?1 AND r.redeemed_at < ?2 AND `+ownRedemption+`),
		`+unusedOfDay+`,
		(SELECT count(*) FROM undos WHERE refused = '' AND at >= ?1 AND at < ?2 AND station = ?4),
		`+issuedForDay, from, to, day, station).
		Scan(&st.Issued, &st.Printed, &st.Scans, &st.Redeemed, &st.Unused, &st.Undone, &st.ForDay)
	if err != nil {
		return app.Stats{}, d.wrap(err, "cannot count the figures")
	}
	rows, err := d.db.QueryContext(ctx, `SELECT outcome, count(*) FROM scans WHERE at >= ? AND at < ? AND outcome <> 'redeemed' GROUP BY outcome`, from, to)
	if err != nil {
		return app.Stats{}, d.wrap(err, "cannot count the figures")
	}
	defer rows.Close()
	for rows.Next() {
		var o string
		var n int
		if err := rows.Scan(&o, &n); err != nil {
			return app.Stats{}, d.wrap(err, "cannot count the figures")
		}
		if app.Outcome(o) == app.OutcomeJustScanned {
			st.JustScanned = n // not a refusal
			continue
		}
		st.Refused[app.Outcome(o)] = n
	}
	return st, d.wrap(rows.Err(), "cannot count the figures")
}
