package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"qrdesk/app"
	"qrdesk/protocol"
)

var _ app.OperatorStore = (*DB)(nil)

const operatorColumns = `id, name, supervisor, pin_hash, badge_version, created_at, removed_at, staff_id`

func scanOperator(row interface{ Scan(...any) error }) (app.Operator, error) {
	var op app.Operator
	err := row.Scan(&op.ID, &op.Name, &op.Supervisor, &op.PINHash, &op.BadgeVersion, &op.CreatedAt, &op.RemovedAt, &op.StaffID)
	return op, err
}

// sharedList is true when the desk's operators are the deployment's staff
// list: its server announced the staff kind at the desk's enrolment.
const sharedList = `EXISTS (SELECT 1 FROM sync_state s, json_each(s.value) k WHERE s.key = 'server_kinds' AND json_valid(s.value) AND k.value = '` + string(protocol.KindStaff) + `')`

// OperatorList says which list the desk's operators are, and the desk's
// identity.
func (d *DB) OperatorList(ctx context.Context) (app.OperatorList, error) {
	var l app.OperatorList
	err := d.db.QueryRowContext(ctx, `SELECT `+sharedList+`, COALESCE((SELECT value FROM sync_state WHERE key = 'desk_id'), '')`).Scan(&l.Shared, &l.DeskID)
	return l, d.wrap(err, "cannot read the desk's list of operators")
}

// staffEvent queues, on the deployment's staff list, the outbox event of
// a change made here (nothing on a desk's own list).
func staffEvent(ctx context.Context, tx *sql.Tx, ch protocol.StaffChange, actor app.Actor, at int64) error {
	var shared bool
	if err := tx.QueryRowContext(ctx, `SELECT `+sharedList).Scan(&shared); err != nil || !shared {
		return err
	}
	return addStaffEvent(ctx, tx, ch, actor.Operator, at)
}

func addStaffEvent(ctx context.Context, tx *sql.Tx, ch protocol.StaffChange, operator string, at int64) error {
	data, _ := json.Marshal(ch)
	_, err := tx.ExecContext(ctx, `INSERT INTO outbox (event_id, kind, code, operator, at, reason, staff) VALUES (?, ?, '', ?, ?, ?, ?)`,
		app.NewTraceID(), protocol.KindStaff, operator, at, ch.Summary(), string(data))
	return err
}

// audit writes one audit row that names no code.
func audit(ctx context.Context, tx *sql.Tx, at int64, actor app.Actor, action, subject, detail string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO audit (at, station, operator, action, subject, detail) VALUES (?, ?, ?, ?, ?, ?)`,
		at, actor.Station, actor.Operator, action, subject, detail)
	return err
}

// AddOperator stores a new operator and audits it.
func (d *DB) AddOperator(ctx context.Context, op app.Operator, actor app.Actor) (app.Operator, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return app.Operator{}, d.wrap(err, "cannot add operator %s", op.Name)
	}
	defer tx.Rollback()
	err = tx.QueryRowContext(ctx, `INSERT INTO operators (name, supervisor, pin_hash, badge_version, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
		op.Name, op.Supervisor, op.PINHash, op.BadgeVersion, op.CreatedAt).Scan(&op.ID)
	if isUnique(err) {
		return app.Operator{}, app.Errorf(app.KindConflict, "there is already an operator called %s: pick another name, or remove the old one first ('qrdesk operators remove')", op.Name)
	}
	if err != nil {
		return app.Operator{}, d.wrap(err, "cannot add operator %s", op.Name)
	}
	if err := audit(ctx, tx, op.CreatedAt, actor, "operator_add", op.Name, op.Role()); err != nil {
		return app.Operator{}, d.wrap(err, "cannot add operator %s", op.Name)
	}
	add := protocol.StaffChange{Action: protocol.StaffAdd, Name: op.Name, Supervisor: op.Supervisor, PINHash: op.PINHash}
	if err := staffEvent(ctx, tx, add, actor, op.CreatedAt); err != nil {
		return app.Operator{}, d.wrap(err, "cannot add operator %s", op.Name)
	}
	return op, d.wrap(tx.Commit(), "cannot add operator %s", op.Name)
}

// Operators lists operators by name (removed ones last).
func (d *DB) Operators(ctx context.Context, withRemoved bool) ([]app.Operator, error) {
	q := `SELECT ` + operatorColumns + ` FROM operators WHERE removed_at = 0 ORDER BY name COLLATE NOCASE, id`
	if withRemoved {
		q = `SELECT ` + operatorColumns + ` FROM operators ORDER BY removed_at <> 0, name COLLATE NOCASE, id`
	}
	rows, err := d.db.QueryContext(ctx, q)
	if err != nil {
		return nil, d.wrap(err, "cannot list operators")
	}
	defer rows.Close()
	var out []app.Operator
	for rows.Next() {
		op, err := scanOperator(rows)
		if err != nil {
			return nil, d.wrap(err, "cannot list operators")
		}
		out = append(out, op)
	}
	return out, d.wrap(rows.Err(), "cannot list operators")
}

// OperatorByName returns the current operator called name (any case).
func (d *DB) OperatorByName(ctx context.Context, name string) (app.Operator, error) {
	return d.operator(ctx, `SELECT `+operatorColumns+` FROM operators WHERE name = ? COLLATE NOCASE AND removed_at = 0`, name)
}

// OperatorByID returns one operator, removed or not.
func (d *DB) OperatorByID(ctx context.Context, id int64) (app.Operator, error) {
	return d.operator(ctx, `SELECT `+operatorColumns+` FROM operators WHERE id = ?`, id)
}

// OperatorByStaffID returns the operator of the deployment's staff list
// with that id, removed or not.
func (d *DB) OperatorByStaffID(ctx context.Context, id int64) (app.Operator, error) {
	if id == 0 {
		return app.Operator{}, app.ErrNotFound
	}
	return d.operator(ctx, `SELECT `+operatorColumns+` FROM operators WHERE staff_id = ?`, id)
}

func (d *DB) operator(ctx context.Context, query string, arg any) (app.Operator, error) {
	op, err := scanOperator(d.db.QueryRowContext(ctx, query, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return app.Operator{}, app.ErrNotFound
	}
	return op, d.wrap(err, "cannot read operator %v", arg)
}

// RemoveOperator stamps the operator as removed and audits it.
func (d *DB) RemoveOperator(ctx context.Context, name string, at int64, actor app.Actor) (app.Operator, error) {
	return d.changeOperator(ctx, name, actor, "operator_remove", protocol.StaffChange{Action: protocol.StaffRemove},
		`UPDATE operators SET removed_at = ?2 WHERE name = ?1 COLLATE NOCASE AND removed_at = 0 RETURNING `+operatorColumns, at)
}

// RenewBadge raises the operator's badge version and audits it.
func (d *DB) RenewBadge(ctx context.Context, name string, actor app.Actor) (app.Operator, error) {
	return d.changeOperator(ctx, name, actor, "badge_renew", protocol.StaffChange{Action: protocol.StaffRenewBadge},
		`UPDATE operators SET badge_version = badge_version + 1 WHERE name = ?1 COLLATE NOCASE AND removed_at = 0 RETURNING `+operatorColumns, nil)
}

// SetPINHash replaces the operator's PIN hash and audits it (not the hash).
func (d *DB) SetPINHash(ctx context.Context, name, hash string, actor app.Actor) (app.Operator, error) {
	return d.changeOperator(ctx, name, actor, "pin_change", protocol.StaffChange{Action: protocol.StaffSetPIN, PINHash: hash},
		`UPDATE operators SET pin_hash = ?2 WHERE name = ?1 COLLATE NOCASE AND removed_at = 0 RETURNING `+operatorColumns, hash)
}

// changeOperator makes one change of an operator, audits it and, on the
// deployment's staff list, queues it as a staff event (staff, with the
// operator's name).
func (d *DB) changeOperator(ctx context.Context, name string, actor app.Actor, action string, staff protocol.StaffChange, query string, arg any) (app.Operator, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return app.Operator{}, d.wrap(err, "cannot change operator %s", name)
	}
	defer tx.Rollback()
	op, err := scanOperator(tx.QueryRowContext(ctx, query, name, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return app.Operator{}, app.Errorf(app.KindNotFound, "there is no operator called %s: 'qrdesk operators list' shows them", name)
	}
	if err != nil {
		return app.Operator{}, d.wrap(err, "cannot change operator %s", name)
	}
	now := d.now().Unix()
	if err := audit(ctx, tx, now, actor, action, op.Name, ""); err != nil {
		return app.Operator{}, d.wrap(err, "cannot change operator %s", name)
	}
	staff.Name = op.Name
	if err := staffEvent(ctx, tx, staff, actor, now); err != nil {
		return app.Operator{}, d.wrap(err, "cannot change operator %s", name)
	}
	return op, d.wrap(tx.Commit(), "cannot change operator %s", name)
}

// AuditSignIn records a sign-in, detail the method ("PIN"), or a refused
// one, detail "PIN: why" (PINFailures counts those).
func (d *DB) AuditSignIn(ctx context.Context, subject string, method app.SignInMethod, ok bool, reason string, actor app.Actor) error {
	action, detail := "sign_in", string(method)
	if !ok {
		action, detail = "sign_in_refused", string(method)+": "+reason
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot record the sign-in")
	}
	defer tx.Rollback()
	if err := audit(ctx, tx, d.now().Unix(), actor, action, subject, detail); err != nil {
		return d.wrap(err, "cannot record the sign-in")
	}
	return d.wrap(tx.Commit(), "cannot record the sign-in")
}

// PINFailures counts the refused PIN sign-ins of name (any case) after the
// latest of its last sign-in by PIN, its new PIN and a supervisor's lift of
// its lockout, and those of any name at or after since and after the
// desk's latest lift. Another name's sign-in ends neither count.
func (d *DB) PINFailures(ctx context.Context, name string, since int64) (app.PINFailureCount, error) {
	var f app.PINFailureCount
	err := d.db.QueryRowContext(ctx, `SELECT count(*), COALESCE(max(at), 0) FROM audit
		WHERE action = 'sign_in_refused' AND detail LIKE 'PIN: %' AND subject = ?1 COLLATE NOCASE
		AND id > max(COALESCE((SELECT max(id) FROM audit WHERE action = 'sign_in' AND detail = 'PIN' AND subject = ?1 COLLATE NOCASE), 0),
			COALESCE((SELECT max(id) FROM audit WHERE action IN ('pin_unlock', 'pin_change') AND subject = ?1 COLLATE NOCASE), 0))`,
		name).Scan(&f.Name, &f.NameLast)
	if err == nil {
		err = d.db.QueryRowContext(ctx, `SELECT count(*), COALESCE(min(at), 0) FROM audit
			WHERE action = 'sign_in_refused' AND detail LIKE 'PIN: %' AND at >= ?
			AND id > COALESCE((SELECT max(id) FROM audit WHERE action = 'pin_unlock'), 0)`, since).Scan(&f.Desk, &f.DeskFrom)
	}
	return f, d.wrap(err, "cannot read the sign-in log")
}

// LiftPINLock audits a supervisor's lift of name's PIN lockout, which
// ends the wrong PINs counted against name and against the desk
// (PINFailures). It is the desk's own: the lockout is counted at each desk.
func (d *DB) LiftPINLock(ctx context.Context, name string, actor app.Actor) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot lift the PIN lockout of %s", name)
	}
	defer tx.Rollback()
	if err := audit(ctx, tx, d.now().Unix(), actor, "pin_unlock", name, ""); err != nil {
		return d.wrap(err, "cannot lift the PIN lockout of %s", name)
	}
	return d.wrap(tx.Commit(), "cannot lift the PIN lockout of %s", name)
}
