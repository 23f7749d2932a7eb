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
	stmts := issueStmts{}
	defer stmts.close()
	b, codes, err := d.issueInTx(ctx, tx, stmts, spec, makeCode, true, 0)
	if err != nil {
		return app.Batch{}, nil, err
	}
	if err := tx.Commit(); err != nil {
		return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
	}
	if spec.Progress != nil {
		spec.Progress(spec.Count, spec.Count)
	}
	return b, codes, nil
}

// IssueBatches issues the batches specs describe in one transaction, all
// or none (app.BatchesIssuer): an order file's orders, one batch each.
// One commit, one fsync: a commit each made 10,000 orders take two
// minutes (synchronous=FULL). Codes are not returned (DropCodes).
func (d *DB) IssueBatches(ctx context.Context, specs []app.BatchSpec, makeCode func(serial int) (app.Code, error)) ([]app.Batch, error) {
	total := 0
	for _, spec := range specs {
		total += spec.Count
	}
	conn, release, err := d.issueConn(ctx, total)
	if err != nil {
		return nil, d.wrap(err, "cannot issue codes")
	}
	defer release()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, d.wrap(err, "cannot issue codes")
	}
	defer tx.Rollback()
	out := make([]app.Batch, 0, len(specs))
	stmts := issueStmts{} // orders of 1 to 3 parcels share a few statements
	defer stmts.close()
	type markKey struct{ letter, date, prefix string }
	marks := map[markKey]int{} // the highest serial issued here, by letter, day and prefix
	for _, spec := range specs {
		spec.DropCodes = true
		k := markKey{spec.StationID, spec.LabelDate, spec.Prefix}
		b, _, err := d.issueInTx(ctx, tx, stmts, spec, makeCode, false, marks[k])
		if err != nil {
			return nil, err
		}
		out = append(out, b)
		if spec.Serial {
			marks[k] = b.LastSerial
		}
	}
	// The serial marks, before the commit as for one batch.
	for k, last := range marks {
		if err := d.keepSerialMark(k.letter, k.date, k.prefix, last); err != nil {
			return nil, d.wrap(err, "cannot issue codes")
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, d.wrap(err, "cannot issue codes")
	}
	return out, nil
}

// issueStmts are a transaction's prepared INSERTs of codes, by their
// number of rows.
type issueStmts map[int]*sql.Stmt

func (m issueStmts) get(ctx context.Context, tx *sql.Tx, n int) (*sql.Stmt, error) {
	if st, ok := m[n]; ok {
		return st, nil
	}
	st, err := tx.PrepareContext(ctx, insertCodesSQL(n))
	if err == nil {
		m[n] = st
	}
	return st, err
}

func (m issueStmts) close() {
	for _, st := range m {
		st.Close()
	}
}

// issueInTx writes one batch and its codes in tx.
// keepMark: it keeps the serial mark (serialmark.go) too; IssueBatches
// keeps it once for all its batches (a write and fsync each cost 10,000
// orders 30 s).
// high, when not 0, is the highest serial of the batch's letter, day and
// prefix this transaction issued already (IssueBatches): not read again (a
// read scans the day's batches, and once per order it made 10,000 orders
// quadratic).
func (d *DB) issueInTx(ctx context.Context, tx *sql.Tx, stmts issueStmts, spec app.BatchSpec, makeCode func(serial int) (app.Code, error), keepMark bool, high int) (app.Batch, []app.Code, error) {
	b := app.Batch{LabelDate: spec.LabelDate, Count: spec.Count, Type: spec.Type, Ref: spec.Ref,
		ExpireAt: spec.ExpireAt, CreatedAt: spec.CreatedAt, Station: spec.Actor.Station, Operator: spec.Operator}
	var stationID sql.NullString
	if spec.Serial {
		stationID = sql.NullString{String: spec.StationID, Valid: true}
		// Serials continue after the day's highest this desk knows of its
		// letter (serials.go); the immediate transaction holds the write
		// lock, so no other process can take the same ones.
		if high == 0 {
			stored, err := highestSerial(ctx, tx, spec.LabelDate, spec.Prefix, spec.StationID)
			if err != nil {
				return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
			}
			marked, err := d.markedSerial(spec.StationID, spec.LabelDate, spec.Prefix) // serialmark.go
			if err != nil {
				return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
			}
			high = max(stored, marked)
		}
		b.FirstSerial = high + 1
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
	args := make([]any, sharedCols+perRowCols*min(issueRows, spec.Count))
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
		stmt, err := stmts.get(ctx, tx, n) // n < issueRows: the batch's last, shorter statement
		if err != nil {
			return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
		}
		if _, err := stmt.ExecContext(ctx, args[:sharedCols+perRowCols*n]...); err != nil {
			return app.Batch{}, nil, d.issueError(err, firstSerial)
		}
		if done := first + n; spec.Progress != nil && done/5000 > first/5000 {
			spec.Progress(done, spec.Count)
		}
	}
	if spec.Serial && keepMark {
		if err := d.keepSerialMark(spec.StationID, spec.LabelDate, spec.Prefix, b.LastSerial); err != nil {
			return app.Batch{}, nil, d.wrap(err, "cannot issue codes")
		}
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
