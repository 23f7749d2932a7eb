package store

import (
	"context"
	"database/sql"
	"strings"

	"qrdesk/app"
)

// IssueBatch creates a whole batch in one transaction (see app.Store).
func (d *DB) IssueBatch(ctx context.Context, spec app.BatchSpec, makeCode func(serial int) (app.Code, error)) (app.Batch, []app.Code, error) {
	conn, release, err := d.issueConn(ctx, spec.Count)
	if err != nil {
		return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
	}
	defer release()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
	}
	defer tx.Rollback()

	b := app.Batch{LabelDate: spec.LabelDate, Count: spec.Count, Type: spec.Type, Ref: spec.Ref,
		ExpireAt: spec.ExpireAt, CreatedAt: spec.CreatedAt, Station: spec.Actor.Station, Operator: spec.Operator}
	var stationID sql.NullString
	if spec.Serial {
		stationID = sql.NullString{String: spec.StationID, Valid: true}
		// Serials continue after the day's highest this desk knows of its
		// letter (serials.go); the immediate transaction holds the write
		// lock, so no other process can take the same ones.
		high, err := highestSerial(ctx, tx, spec.LabelDate, spec.Prefix, spec.StationID)
		if err != nil {
			return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
		}
		marked, err := d.markedSerial(spec.StationID, spec.LabelDate, spec.Prefix) // serialmark.go
		if err != nil {
			return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
		}
		b.FirstSerial = max(high, marked) + 1
		b.LastSerial = b.FirstSerial + spec.Count - 1
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO batches (label_date, count, type, ref, expire_at, created_at, first_serial, last_serial, prefix, station_id, station, operator)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, b.LabelDate, b.Count, b.Type, b.Ref, b.ExpireAt, b.CreatedAt, b.FirstSerial, b.LastSerial,
		spec.Prefix, stationID.String, b.Station, b.Operator)
	if err != nil {
		return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
	}
	if b.ID, err = res.LastInsertId(); err != nil {
		return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
	}
	if spec.Order != nil {
		if err := recordOrder(ctx, tx, *spec.Order, b.ID, spec.CreatedAt); err != nil { // orders.go
			return app.Batch{}, nil, err
		}
	}
	// Codes go in issueRows to a statement: the columns every code of the
	// batch shares are bound once per statement (?1–?8), only the random
	// part, serial, key id, signature, serial width and date per row; SQLite's per-statement work
	// and the driver's per-call work are paid once for issueRows codes.
	// OR FAIL: a statement that breaks a constraint stops where it is
	// instead of undoing its own rows first (ABORT, the default), so SQLite
	// keeps no statement journal for it; the whole transaction is rolled
	// back anyway.
	full, err := tx.PrepareContext(ctx, insertCodesSQL(issueRows))
	if err != nil {
		return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
	}
	defer full.Close()
	args := make([]any, sharedCols+perRowCols*issueRows)
	copy(args, []any{spec.Prefix, spec.LabelDate, stationID, b.ID, spec.Type, spec.Ref, spec.ExpireAt, spec.CreatedAt})
	var codes []app.Code
	if !spec.DropCodes {
		codes = make([]app.Code, 0, spec.Count)
	}
	for first := 0; first < spec.Count; first += issueRows {
		n := min(issueRows, spec.Count-first)
		firstSerial := 0
		for r := 0; r < n; r++ {
			serial := 0
			var serialArg sql.NullInt64
			if spec.Serial {
				serial = b.FirstSerial + first + r
				serialArg = sql.NullInt64{Int64: int64(serial), Valid: true}
			}
			c, err := makeCode(serial)
			if err != nil {
				return app.Batch{}, nil, err
			}
			row := args[sharedCols+perRowCols*r:]
			row[0], row[1], row[2], row[3], row[4], row[5] = c.Random, serialArg, string(c.KeyID), c.Signature, serialLen(c), codeDate(c)
			if r == 0 {
				firstSerial = c.Serial
			}
			if !spec.DropCodes {
				codes = append(codes, c)
			}
		}
		stmt := full
		if n < issueRows { // the batch's last, shorter statement
			if stmt, err = tx.PrepareContext(ctx, insertCodesSQL(n)); err != nil {
				return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
			}
			defer stmt.Close()
		}
		if _, err := stmt.ExecContext(ctx, args[:sharedCols+perRowCols*n]...); err != nil {
			return app.Batch{}, nil, d.issueError(err, firstSerial)
		}
		if done := first + n; spec.Progress != nil && done/5000 > first/5000 {
			spec.Progress(done, spec.Count)
		}
	}
	if spec.Serial {
		if err := d.keepSerialMark(spec.StationID, spec.LabelDate, spec.Prefix, b.LastSerial); err != nil {
			return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
		}
	}
	if err := tx.Commit(); err != nil {
		return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
	}
	if spec.Progress != nil {
		spec.Progress(spec.Count, spec.Count)
	}
	return b, codes, nil
}

func (d *DB) issueError(err error, serial int) error {
	if isUnique(err) {
		return app.ErrorfWrap(app.KindConflict, err, "a new code collided with an existing one (near serial %d); nothing was issued, issue again", serial)
	}
	return d.wrap(err, "cannot issue codes")
}

// Rows of one INSERT of a batch, and how its parameters are laid out.
const (
	issueRows  = 64
	sharedCols = 8 // prefix, label_date, station_id, batch_id, type, ref, expire_at, created_at
	perRowCols = 6 // random, serial, key_id, sig, serial_len, code_date
)

// insertCodesSQL is an INSERT of n codes: ?1–?8 are the columns the batch
// shares, then six parameters per code (the printed code is computed from
// them: migration 0022). Those are anonymous (each "?"
// takes the next number, 9, 10, …, as the layout above has them): the
// driver asks SQLite for every parameter's name, which walks the list of
// named ones, and with 264 named ones that walk cost 13 % of an issue.
func insertCodesSQL(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT OR FAIL INTO codes (prefix, label_date, station_id, batch_id, type, ref, expire_at, created_at, random, serial, key_id, sig, serial_len, code_date) VALUES `)
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?, ?, ?, ?, ?, ?)")
	}
	return b.String()
}
