package store

import (
	"context"
	"database/sql"
	"errors"

	"qrdesk/app"
)

var _ app.PrintStore = (*DB)(nil)

// StartPrintJob records a pending job and its codes in print order.
func (d *DB) StartPrintJob(ctx context.Context, job app.PrintJob, codeIDs []int64) (int64, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, d.wrap(err, "cannot record the print job")
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO print_jobs (created_at, station, operator, template, format, printer, output, codes, reprint)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, job.CreatedAt, job.Station, job.Operator, job.Template, job.Format, job.Printer, job.Output, len(codeIDs), job.Reprint)
	if err != nil {
		return 0, d.wrap(err, "cannot record the print job")
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, d.wrap(err, "cannot record the print job")
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO print_job_codes (job_id, position, code_id) VALUES (?, ?, ?)`)
	if err != nil {
		return 0, d.wrap(err, "cannot record the print job")
	}
	defer stmt.Close()
	for i, cid := range codeIDs {
		if _, err := stmt.ExecContext(ctx, id, i, cid); err != nil {
			return 0, d.wrap(err, "cannot record the print job")
		}
	}
	return id, d.wrap(tx.Commit(), "cannot record the print job")
}

// FinishPrintJob marks a job done (one more print for each code) or failed.
func (d *DB) FinishPrintJob(ctx context.Context, id int64, at int64, failure error) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot finish print job %d", id)
	}
	defer tx.Rollback()
	if failure != nil {
		_, err = tx.ExecContext(ctx, `UPDATE print_jobs SET status = 'failed', error = ?, finished_at = ? WHERE id = ?`, app.ErrorMessage(failure), at, id)
	} else {
		if _, err = tx.ExecContext(ctx, `UPDATE print_jobs SET status = 'done', error = '', finished_at = ? WHERE id = ?`, at, id); err == nil {
			_, err = tx.ExecContext(ctx, `UPDATE codes SET print_count = print_count + 1 WHERE id IN (SELECT code_id FROM print_job_codes WHERE job_id = ?)`, id)
		}
	}
	if err != nil {
		return d.wrap(err, "cannot finish print job %d", id)
	}
	return d.wrap(tx.Commit(), "cannot finish print job %d", id)
}

// PrintJobCodes returns a job and its codes in print order.
func (d *DB) PrintJobCodes(ctx context.Context, id int64) (app.PrintJob, []app.CodeRecord, error) {
	var j app.PrintJob
	err := d.db.QueryRowContext(ctx, `SELECT id, created_at, finished_at, station, operator, template, format, printer, output, codes, reprint, status, error
		FROM print_jobs WHERE id = ?`, id).Scan(&j.ID, &j.CreatedAt, &j.FinishedAt, &j.Station, &j.Operator, &j.Template, &j.Format,
		&j.Printer, &j.Output, &j.Codes, &j.Reprint, &j.Status, &j.Error)
	if errors.Is(err, sql.ErrNoRows) {
		return app.PrintJob{}, nil, app.ErrNotFound
	}
	if err != nil {
		return app.PrintJob{}, nil, d.wrap(err, "cannot read print job %d", id)
	}
	recs, err := d.records(ctx, recordSelect+` FROM print_job_codes p JOIN codes c ON c.id = p.code_id`+recordJoin+` WHERE p.job_id = ? ORDER BY p.position`, id)
	return j, recs, err
}
