package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"

	"qrdesk/app"
	"qrdesk/protocol"
)

// The desk's copy of the deployment's staff list (protocol/staff.go):
// the feed's and the snapshot's members applied to the operators table,
// and the operators of the desk's own list sent up when it joins.

// applyStaffChange brings the desk's copy of one member to the server's
// record: the row of its staff id; else the desk's own current operator
// of that name (the desk's add the server took, or another desk's of the
// same person: the deployment's record wins); else a new row. A badge is
// never given back an older version (a renewal made here is on its way
// to the server), a removal made here is never taken back, and a PIN set
// here and not sent yet stays.
func applyStaffChange(ctx context.Context, tx *sql.Tx, data string) error {
	var m protocol.StaffMember
	if err := json.Unmarshal([]byte(data), &m); err != nil || m.ID < 1 || m.BadgeVersion < 1 || app.CheckOperatorName(m.Name) != nil || !app.ValidPINHash(m.PINHash) {
		return nil // not a member this desk can keep: it signs in nowhere here
	}
	pinHere := `EXISTS (SELECT 1 FROM outbox WHERE kind = '` + string(protocol.KindStaff) + `' AND state = 'pending'
		AND json_extract(staff, '$.action') = '` + protocol.StaffSetPIN + `' AND json_extract(staff, '$.name') = operators.name COLLATE NOCASE)`
	set := `name = ?, supervisor = ?, pin_hash = CASE WHEN ` + pinHere + ` THEN pin_hash ELSE ? END,
		badge_version = max(badge_version, ?), removed_at = CASE WHEN removed_at <> 0 THEN removed_at ELSE ? END`
	args := []any{m.Name, m.Supervisor, m.PINHash, m.BadgeVersion, m.RemovedAt}
	res, err := tx.ExecContext(ctx, `UPDATE operators SET `+set+` WHERE staff_id = ?`, append(args, m.ID)...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	if m.RemovedAt == 0 {
		res, err := tx.ExecContext(ctx, `UPDATE operators SET staff_id = ?, `+set+` WHERE name = ? COLLATE NOCASE AND removed_at = 0 AND staff_id = 0`,
			append(append([]any{m.ID}, args...), m.Name)...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
	}
	// A current operator of that name here already belongs to another
	// member (a change this desk has not seen yet removes them): the
	// member waits for the feed's next record of them.
	_, err = tx.ExecContext(ctx, `INSERT OR IGNORE INTO operators (name, supervisor, pin_hash, badge_version, created_at, removed_at, staff_id)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, m.Name, m.Supervisor, m.PINHash, m.BadgeVersion, m.CreatedAt, m.RemovedAt, m.ID)
	return err
}

// applyStaffList brings the desk's copy to a snapshot's staff list: each
// member as a feed change; an operator whose staff id the server does not
// hold (it was restored from a backup that lost them) is the desk's own
// again, and joins the list anew (JoinStaffList: a new id, a new badge).
// A member the desk holds as removed and the server lists as current is a
// removal the server lost (restored from a backup): a staff id is never
// given back to a removed member (a re-added operator is a new member),
// so the desk sends the removal again (sendLostRemoval). The removed
// members go first, whatever the snapshot's order: a name removed and
// added again is free here for its new member only once the earlier one
// is removed (one current operator per name), and no later record of the
// new member may come.
func applyStaffList(ctx context.Context, tx *sql.Tx, staff []protocol.StaffMember) error {
	current := func(m protocol.StaffMember) int {
		if m.RemovedAt == 0 {
			return 1
		}
		return 0
	}
	staff = slices.Clone(staff)
	slices.SortStableFunc(staff, func(a, b protocol.StaffMember) int { return cmp.Compare(current(a), current(b)) })
	ids := make([]int64, 0, len(staff))
	for _, m := range staff {
		if err := sendLostRemoval(ctx, tx, m); err != nil {
			return err
		}
		data, _ := json.Marshal(m)
		if err := applyStaffChange(ctx, tx, string(data)); err != nil {
			return err
		}
		ids = append(ids, m.ID)
	}
	list, _ := json.Marshal(ids)
	_, err := tx.ExecContext(ctx, `UPDATE operators SET staff_id = 0 WHERE staff_id <> 0 AND staff_id NOT IN (SELECT value FROM json_each(?))`, string(list))
	return err
}

// sendLostRemoval queues a remove of m, a current member in the server's
// snapshot, when the desk holds the same member (staff id and name) as
// removed at or after the member's creation: the server lost that
// removal in a restore, and a desk enrolled since would sign the badge in
// again. The event carries the removal's time, so work after it is
// judged as before. A member the server created after the desk's removal
// time is not the one removed (a restored server may give a lost
// member's id again), and a removal still waiting here goes anyway.
func sendLostRemoval(ctx context.Context, tx *sql.Tx, m protocol.StaffMember) error {
	if m.RemovedAt != 0 || m.ID < 1 {
		return nil
	}
	var removedAt int64
	err := tx.QueryRowContext(ctx, `SELECT removed_at FROM operators WHERE staff_id = ? AND name = ? COLLATE NOCASE AND removed_at <> 0
		AND NOT EXISTS (SELECT 1 FROM outbox WHERE kind = ? AND state = 'pending'
			AND json_extract(staff, '$.action') = ? AND json_extract(staff, '$.name') = operators.name COLLATE NOCASE)`,
		m.ID, m.Name, protocol.KindStaff, protocol.StaffRemove).Scan(&removedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if removedAt < m.CreatedAt {
		return nil
	}
	return addStaffEvent(ctx, tx, protocol.StaffChange{Action: protocol.StaffRemove, Name: m.Name}, "", removedAt)
}

// JoinStaffList queues, on the deployment's staff list, an add event for
// every current operator of the desk's own list that never went to the
// server (added before the desk's server kept a staff list): the server
// adds them, or, for a name it holds already, the deployment's record
// comes back through the feed in their place.
func (d *DB) JoinStaffList(ctx context.Context, at int64) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot send the desk's operators to the staff list")
	}
	defer tx.Rollback()
	var shared bool
	if err := tx.QueryRowContext(ctx, `SELECT `+sharedList).Scan(&shared); err != nil || !shared {
		return d.wrap(err, "cannot send the desk's operators to the staff list")
	}
	rows, err := tx.QueryContext(ctx, `SELECT name, supervisor, pin_hash FROM operators o WHERE removed_at = 0 AND staff_id = 0
		AND NOT EXISTS (SELECT 1 FROM outbox WHERE kind = ? AND json_extract(staff, '$.action') = ? AND json_extract(staff, '$.name') = o.name COLLATE NOCASE)
		ORDER BY id`, protocol.KindStaff, protocol.StaffAdd)
	if err != nil {
		return d.wrap(err, "cannot send the desk's operators to the staff list")
	}
	var adds []protocol.StaffChange
	for rows.Next() {
		ch := protocol.StaffChange{Action: protocol.StaffAdd}
		if err := rows.Scan(&ch.Name, &ch.Supervisor, &ch.PINHash); err != nil {
			rows.Close()
			return d.wrap(err, "cannot send the desk's operators to the staff list")
		}
		adds = append(adds, ch)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return d.wrap(err, "cannot send the desk's operators to the staff list")
	}
	for _, ch := range adds {
		if err := addStaffEvent(ctx, tx, ch, "", at); err != nil {
			return d.wrap(err, "cannot send the desk's operators to the staff list")
		}
	}
	return d.wrap(tx.Commit(), "cannot send the desk's operators to the staff list")
}

// staffOf reads a staff event's change from its outbox column.
func staffOf(data string) (*protocol.StaffChange, error) {
	if data == "" {
		return nil, nil
	}
	var ch protocol.StaffChange
	if err := json.Unmarshal([]byte(data), &ch); err != nil {
		return nil, errors.New("a staff event's change cannot be read: " + err.Error())
	}
	return &ch, nil
}
