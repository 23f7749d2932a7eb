package serverdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/protocol"
)

// The deployment's staff list (central/staff.go): one table, changed by
// the desks' staff events and by the administrators, every change a feed
// change of kind staff carrying the member as it is now.

const staffColumns = `id, name, supervisor, pin_hash, badge_version, created_at, removed_at`

// sameName is the condition that a member's name is the parameter's, told
// apart as a desk tells operators apart (SQLite's NOCASE: the case of A–Z
// folded, no other letter's). PostgreSQL's lower() folds every letter
// its locale knows (É to é), so there the fold is the "C" collation's,
// A–Z only, as in the index staff_current_name; otherwise a desk's change
// of its picker "émile" would be applied to the supervisor "Émile".
func (c *DB) sameName() string {
	if c.e.postgres {
		return `lower(name COLLATE "C") = lower(CAST(? AS TEXT) COLLATE "C")`
	}
	return `lower(name) = lower(?)`
}

func scanStaff(row interface{ Scan(...any) error }) (protocol.StaffMember, error) {
	var m protocol.StaffMember
	err := row.Scan(&m.ID, &m.Name, &m.Supervisor, &m.PINHash, &m.BadgeVersion, &m.CreatedAt, &m.RemovedAt)
	return m, err
}

// changeStaff applies one change of the list in tx at at (Unix seconds)
// and adds its feed change; station names who made it ("" for an
// administrator). A change the list refuses is central.ErrStaffExists or
// central.ErrNoStaff, with nothing written.
func (c *DB) changeStaff(ctx context.Context, tx *etx, ch protocol.StaffChange, station string, at int64) (protocol.StaffMember, error) {
	var row writeRow
	switch ch.Action {
	case protocol.StaffAdd:
		var n int
		if err := tx.queryRow(ctx, `SELECT count(*) FROM staff WHERE `+c.sameName()+` AND removed_at = 0`, ch.Name).Scan(&n); err != nil {
			return protocol.StaffMember{}, err
		}
		if n > 0 {
			return protocol.StaffMember{}, central.ErrStaffExists
		}
		if err := c.readsLikeCurrent(ctx, tx, ch.Name); err != nil {
			return protocol.StaffMember{}, err
		}
		// A concurrent add of the name (PostgreSQL) fails on the unique
		// index: the event is decided again and finds it.
		row = tx.queryRow(ctx, `INSERT INTO staff (name, supervisor, pin_hash, badge_version, created_at) VALUES (?, ?, ?, 1, ?) RETURNING `+staffColumns,
			ch.Name, ch.Supervisor, ch.PINHash, at)
	case protocol.StaffRemove:
		row = tx.queryRow(ctx, `UPDATE staff SET removed_at = ? WHERE `+c.sameName()+` AND removed_at = 0 RETURNING `+staffColumns, max(at, 1), ch.Name)
	case protocol.StaffRenewBadge:
		row = tx.queryRow(ctx, `UPDATE staff SET badge_version = badge_version + 1 WHERE `+c.sameName()+` AND removed_at = 0 RETURNING `+staffColumns, ch.Name)
	case protocol.StaffSetPIN:
		row = tx.queryRow(ctx, `UPDATE staff SET pin_hash = ? WHERE `+c.sameName()+` AND removed_at = 0 RETURNING `+staffColumns, ch.PINHash, ch.Name)
	default:
		return protocol.StaffMember{}, central.Badf("staff: unknown action %q", ch.Action)
	}
	m, err := scanStaff(row)
	if errors.Is(err, sql.ErrNoRows) {
		return protocol.StaffMember{}, central.ErrNoStaff
	}
	if err != nil {
		return protocol.StaffMember{}, err
	}
	data, _ := json.Marshal(m)
	return m, c.addChanges(ctx, tx, change{protocol.KindStaff, "", station, string(data)})
}

// readsLikeCurrent returns an *app.LooksLikeError when name reads as a
// current member's name does (app.OperatorNameKey): a zero-width space
// inside, a letter decomposed, another case or width. Names already
// stored are not compared with each other: they keep working as they are.
func (c *DB) readsLikeCurrent(ctx context.Context, tx *etx, name string) error {
	rows, err := tx.query(ctx, `SELECT name FROM staff WHERE removed_at = 0`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if like := app.ReadsLike(name, names); like != "" {
		return &app.LooksLikeError{Name: name, Existing: like}
	}
	return nil
}

// staffEvent decides a desk's staff event.
func (c *DB) staffEvent(ctx context.Context, tx *etx, st central.Station, ev protocol.Event) (protocol.Result, error) {
	if ev.Staff == nil {
		return protocol.Result{Outcome: protocol.OutcomeRejected, Reason: "a staff event carries its change in staff"}, nil
	}
	if why, err := c.deskStaffRefusal(ctx, tx, *ev.Staff); err != nil || why != "" {
		return protocol.Result{Outcome: protocol.OutcomeRejected, Reason: why}, err
	}
	if ev.Staff.Action == protocol.StaffRemove {
		if why, err := c.removalOfAnEarlierRecord(ctx, tx, ev.Staff.Name, ev.At); err != nil || why != "" {
			return protocol.Result{Outcome: protocol.OutcomeRejected, Reason: why}, err
		}
	}
	m, err := c.changeStaff(ctx, tx, *ev.Staff, st.Name, ev.At)
	var bad *central.BadRequest
	var like *app.LooksLikeError
	switch {
	case errors.Is(err, central.ErrStaffExists), errors.Is(err, central.ErrNoStaff), errors.As(err, &bad), errors.As(err, &like):
		return protocol.Result{Outcome: protocol.OutcomeRejected, Reason: err.Error()}, nil
	case err != nil:
		return protocol.Result{}, err
	}
	if ev.Staff.Action == protocol.StaffRemove {
		if err := c.flagWorkAfterRemoval(ctx, tx, m); err != nil {
			return protocol.Result{}, err
		}
	}
	return protocol.Result{Outcome: protocol.OutcomeStaffChanged}, nil
}

// deskStaffRefusal says why the deployment's rule refuses a desk's staff
// change ("" when it takes it: central.DeskStaffRefusal), read in tx.
func (c *DB) deskStaffRefusal(ctx context.Context, tx *etx, ch protocol.StaffChange) (string, error) {
	rule := central.DeskStaffPickers
	err := tx.queryRow(ctx, `SELECT value FROM deployment WHERE key = 'desk_staff'`).Scan(&rule)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	if rule == central.DeskStaffAll {
		return "", nil
	}
	var target *protocol.StaffMember
	m, err := scanStaff(tx.queryRow(ctx, `SELECT `+staffColumns+` FROM staff WHERE `+c.sameName()+` AND removed_at = 0`, ch.Name))
	switch {
	case err == nil:
		target = &m
	case !errors.Is(err, sql.ErrNoRows):
		return "", err
	}
	var supervisors int
	if err := tx.queryRow(ctx, `SELECT count(*) FROM staff WHERE supervisor`).Scan(&supervisors); err != nil {
		return "", err
	}
	return central.DeskStaffRefusal(rule, ch, target, supervisors > 0), nil
}

// DeskStaff returns the deployment's rule for the desks' staff changes
// (central.DeskStaffPickers unless set).
func (c *DB) DeskStaff(ctx context.Context) (string, error) {
	v := central.DeskStaffPickers
	err := c.e.queryRow(ctx, `SELECT value FROM deployment WHERE key = 'desk_staff'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return central.DeskStaffPickers, nil
	}
	return v, err
}

// SetDeskStaff stores the rule (central.CheckDeskStaff), audited as the
// administrator by's ("" for the command line) at at; it decides every
// desk staff event from then on.
func (c *DB) SetDeskStaff(ctx context.Context, v, by string, at int64) error {
	if err := central.CheckDeskStaff(v); err != nil {
		return err
	}
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	if _, err := tx.exec(ctx, `INSERT INTO deployment (key, value) VALUES ('desk_staff', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, v); err != nil {
		return err
	}
	if err := logAdmin(ctx, tx, central.AdminAction{At: at, Admin: by, Action: "desk_staff", Subject: v, Detail: "staff changes from desks: " + v}); err != nil {
		return err
	}
	return tx.commit()
}

// removalOfAnEarlierRecord says why a desk's removal of name made at at
// does not apply ("" when it does): the current record of that name was
// added after it (removed at the server meanwhile and added again, a new
// badge and PIN), so the desk removed the earlier record, which is gone
// already. Removing the new one would lock out someone the administrator
// has just let in.
func (c *DB) removalOfAnEarlierRecord(ctx context.Context, tx *etx, name string, at int64) (string, error) {
	var created int64
	err := tx.queryRow(ctx, `SELECT created_at FROM staff WHERE `+c.sameName()+` AND removed_at = 0`, name).Scan(&created)
	if errors.Is(err, sql.ErrNoRows) || err == nil && created <= at {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s was added again at %s, after this removal was made at the desk (%s): the removal was of the earlier record and the new one stays; remove %s again if that is meant",
		name, app.FormatTime(created), app.FormatTime(at), name), nil
}

// flagWorkAfterRemoval flags the redemptions by m, and the expiries of
// m's day closes, the server took at or after m's removal time before it
// heard of the removal: a removal that arrives late (a desk's, offline
// when it was made, or one a desk sends again because a restore of the
// server lost it) is dated when it was made, and the work after it is the
// removed operator's work as much as work decided after the removal
// arrived (central.ByRemovedStaff; listed in the report and on the
// dashboard from the event rows). An expiry taken stays: a current
// supervisor sees it in the removed staff's work.
func (c *DB) flagWorkAfterRemoval(ctx context.Context, tx *etx, m protocol.StaffMember) error {
	if m.RemovedAt == 0 {
		return nil
	}
	note := central.ByRemovedStaff(central.Note{}, m.Name, m.RemovedAt)
	_, err := tx.exec(ctx, `UPDATE events SET flags = flags | ?, flag = CASE WHEN flag = '' THEN ? ELSE flag || '; ' || ? END
		WHERE ((kind = 'redeem' AND outcome IN ('redeemed', 'conflict')) OR (kind = 'expire' AND outcome = 'expired'))
			AND decided_at >= ? AND (flags & ?) = 0 AND `+c.sameOperator(),
		int64(central.FlagRemovedStaff), note.Text, note.Text, m.RemovedAt, int64(central.FlagRemovedStaff), m.Name)
	return err
}

// sameOperator is sameName for the events' operator column.
func (c *DB) sameOperator() string {
	if c.e.postgres {
		return `lower(operator COLLATE "C") = lower(CAST(? AS TEXT) COLLATE "C")`
	}
	return `lower(operator) = lower(?)`
}

// ChangeStaff makes an administrator's change of the staff list (by: the
// dashboard's administrator, "" for the command line), audited, and
// returns the member as it is now. The desks get it at their next sync.
func (c *DB) ChangeStaff(ctx context.Context, ch protocol.StaffChange, by string, at int64) (protocol.StaffMember, error) {
	if err := central.ValidateStaffChange(ch); err != nil {
		return protocol.StaffMember{}, err
	}
	tx, err := c.e.begin(ctx)
	if err != nil {
		return protocol.StaffMember{}, err
	}
	defer tx.done()
	m, err := c.changeStaff(ctx, tx, ch, "", at)
	if err != nil {
		return protocol.StaffMember{}, err
	}
	if err := logAdmin(ctx, tx, central.AdminAction{At: at, Admin: by, Action: "staff_" + ch.Action, Subject: m.Name, Detail: ch.Summary()}); err != nil {
		return protocol.StaffMember{}, err
	}
	return m, tx.commit()
}

// Staff lists the deployment's staff list by name: the current members,
// and the removed ones after them when withRemoved.
func (c *DB) Staff(ctx context.Context, withRemoved bool) ([]protocol.StaffMember, error) {
	q := `SELECT ` + staffColumns + ` FROM staff WHERE removed_at = 0 ORDER BY lower(name), id`
	if withRemoved {
		q = `SELECT ` + staffColumns + ` FROM staff ORDER BY removed_at <> 0, lower(name), id`
	}
	rows, err := c.e.query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []protocol.StaffMember{}
	for rows.Next() {
		m, err := scanStaff(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// staffRemovedAt is when the operator name had been removed from the
// staff list at the time at (central.StaffRemovedAt; 0: not removed).
func (c *DB) staffRemovedAt(ctx context.Context, tx *etx, name string, at int64) (int64, error) {
	if name == "" {
		return 0, nil
	}
	rows, err := tx.query(ctx, `SELECT `+staffColumns+` FROM staff WHERE `+c.sameName(), name)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var members []protocol.StaffMember
	for rows.Next() {
		m, err := scanStaff(rows)
		if err != nil {
			return 0, err
		}
		members = append(members, m)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	return central.StaffRemovedAt(members, at), nil
}

// removedSupervisor is when the operator of a supervisor's event (undo,
// disable, enable, replace) had been removed from the staff list, by the
// list at the event's time (the desk's clock corrected, the server's when
// that is ahead of it); 0: not removed (central.RefusedByRemovedStaff).
func (c *DB) removedSupervisor(ctx context.Context, tx *etx, ev protocol.Event, now int64) (int64, error) {
	at, _ := central.DecideTime(ev, 0, now)
	return c.staffRemovedAt(ctx, tx, ev.Operator, at)
}
