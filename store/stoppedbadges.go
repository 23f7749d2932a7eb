package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"qrdesk/app"
)

var _ app.StoppedBadgeStore = (*DB)(nil)

// NoteStoppedBadges keeps each stopped badge, one note per name (any case).
func (d *DB) NoteStoppedBadges(ctx context.Context, badges []app.StoppedBadge, at int64) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot note the stopped badges")
	}
	defer tx.Rollback()
	for _, b := range badges {
		if _, err := tx.ExecContext(ctx, `INSERT INTO stopped_badges (name, removed, at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET name = excluded.name, removed = excluded.removed, at = excluded.at`, b.Name, b.Removed, at); err != nil {
			return d.wrap(err, "cannot note the stopped badges")
		}
	}
	return d.wrap(tx.Commit(), "cannot note the stopped badges")
}

// StoppedBadges lists the notes of stopped badges by name.
func (d *DB) StoppedBadges(ctx context.Context) ([]app.StoppedBadge, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT name, removed FROM stopped_badges ORDER BY name`)
	if err != nil {
		return nil, d.wrap(err, "cannot read the stopped badges")
	}
	defer rows.Close()
	var out []app.StoppedBadge
	for rows.Next() {
		var b app.StoppedBadge
		if err := rows.Scan(&b.Name, &b.Removed); err != nil {
			return nil, d.wrap(err, "cannot read the stopped badges")
		}
		out = append(out, b)
	}
	return out, d.wrap(rows.Err(), "cannot read the stopped badges")
}

// DropStoppedBadges drops the notes of names (a badge was printed for them).
func (d *DB) DropStoppedBadges(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	list, _ := json.Marshal(names)
	_, err := d.db.ExecContext(ctx, `DELETE FROM stopped_badges WHERE name IN (SELECT value FROM json_each(?))`, string(list))
	return d.wrap(err, "cannot drop the stopped badges")
}

// DismissStoppedBadge drops name's note and audits the dismissal.
func (d *DB) DismissStoppedBadge(ctx context.Context, name string, actor app.Actor) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot dismiss the stopped badge of %s", name)
	}
	defer tx.Rollback()
	var stored string
	err = tx.QueryRowContext(ctx, `DELETE FROM stopped_badges WHERE name = ? RETURNING name`, name).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) {
		return app.ErrNotFound
	}
	if err != nil {
		return d.wrap(err, "cannot dismiss the stopped badge of %s", name)
	}
	if err := audit(ctx, tx, d.now().Unix(), actor, "stopped_badge_dismiss", stored, ""); err != nil {
		return d.wrap(err, "cannot dismiss the stopped badge of %s", name)
	}
	return d.wrap(tx.Commit(), "cannot dismiss the stopped badge of %s", name)
}
