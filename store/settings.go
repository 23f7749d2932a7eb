package store

import (
	"context"

	"qrdesk/app"
)

// LoadSettings returns the stored settings, defaults for keys never set.
func (d *DB) LoadSettings(ctx context.Context) (app.Settings, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT key, value FROM settings`)
	if err != nil {
		return app.Settings{}, d.wrap(err, "cannot read settings")
	}
	defer rows.Close()
	values := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return app.Settings{}, d.wrap(err, "cannot read settings")
		}
		values[k] = v
	}
	if err := rows.Err(); err != nil {
		return app.Settings{}, d.wrap(err, "cannot read settings")
	}
	return app.SettingsFromStored(values), nil
}

// SaveSettings stores every changed key and audits it (old → new value).
func (d *DB) SaveSettings(ctx context.Context, s app.Settings, actor app.Actor) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot save settings")
	}
	defer tx.Rollback()
	old := app.DefaultSettings().Values()
	rows, err := tx.QueryContext(ctx, `SELECT key, value FROM settings`)
	if err != nil {
		return d.wrap(err, "cannot save settings")
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return d.wrap(err, "cannot save settings")
		}
		old[k] = v
	}
	rows.Close()
	now := d.now().Unix()
	for k, v := range s.Values() {
		if prev, ok := old[k]; ok && prev == v {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, k, v); err != nil {
			return d.wrap(err, "cannot save setting %s", k)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO audit (at, station, operator, action, subject, detail) VALUES (?, ?, ?, 'setting', ?, ?)`,
			now, actor.Station, actor.Operator, k, old[k]+" → "+v); err != nil {
			return d.wrap(err, "cannot save setting %s", k)
		}
	}
	return d.wrap(tx.Commit(), "cannot save settings")
}
