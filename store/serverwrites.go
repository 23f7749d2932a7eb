package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"

	"qrdesk/app"
	"qrdesk/protocol"
)

// The desk's half of restore detection and of versions: the station this
// desk is at its server, the event kinds the server announced, and every
// write number the server gave this desk (server_writes). See
// app.ServerState.

func (d *DB) ServerState(ctx context.Context) (app.ServerState, error) {
	var st app.ServerState
	var kinds string
	var lost int64
	err := d.db.QueryRowContext(ctx, `SELECT
		COALESCE((SELECT value FROM sync_state WHERE key = 'server_station'), ''),
		COALESCE((SELECT value FROM sync_state WHERE key = 'server_kinds'), ''),
		COALESCE((SELECT CAST(value AS INTEGER) FROM sync_state WHERE key = 'server_lost'), 0),
		COALESCE((SELECT max(number) FROM server_writes), 0),
		COALESCE((SELECT CAST(value AS INTEGER) FROM sync_state WHERE key = 'server_protocol'), 0),
		COALESCE((SELECT json_extract(value, '$.letter') FROM sync_state WHERE key = 'server_serials' AND json_valid(value)), '')`).Scan(&st.Station, &kinds, &lost, &st.Highest, &st.Protocol, &st.Letter)
	if err != nil {
		return st, d.wrap(err, "cannot read the sync state")
	}
	if st.Checks, err = d.writeChecks(ctx); err != nil {
		return st, d.wrap(err, "cannot read the sync state")
	}
	if kinds != "" {
		json.Unmarshal([]byte(kinds), &st.Kinds)
	}
	st.Lost = lost != 0
	var sites string
	if err := d.db.QueryRowContext(ctx, `SELECT COALESCE((SELECT value FROM sync_state WHERE key = 'server_sites'), '')`).Scan(&sites); err != nil {
		return st, d.wrap(err, "cannot read the sync state")
	}
	if sites != "" {
		st.Sites = new(protocol.SiteInfo)
		if json.Unmarshal([]byte(sites), st.Sites) != nil {
			st.Sites = nil
		}
	}
	return st, nil
}

// SetServerSites keeps the server's sites as it announced them (sync_state
// 'server_sites', JSON): a desk offline needs them to tell another site's
// label and what to do with it.
func (d *DB) SetServerSites(ctx context.Context, sites *protocol.SiteInfo) error {
	value := ""
	if sites != nil {
		b, err := json.Marshal(sites)
		if err != nil {
			return err
		}
		value = string(b)
	}
	_, err := d.db.ExecContext(ctx, `INSERT INTO sync_state (key, value) VALUES ('server_sites', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, value)
	return d.wrap(err, "cannot save the sync state")
}

// writeChecks returns the writes to name at the next enrolment: the
// highest the server confirmed holding (the anchor), the oldest not
// confirmed yet, and the highest, at most protocol.MaxWriteChecks.
func (d *DB) writeChecks(ctx context.Context) ([]protocol.WriteCheck, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT w.number, w.key, COALESCE((SELECT CASE WHEN json_valid(o.result) THEN json_extract(o.result, '$.outcome') END
			FROM outbox o WHERE o.event_id = w.key), '') FROM (
		SELECT number, key FROM (SELECT number, key FROM server_writes WHERE checked = 1 ORDER BY number DESC LIMIT 1)
		UNION SELECT number, key FROM (SELECT number, key FROM server_writes ORDER BY number DESC LIMIT 1)
		UNION SELECT number, key FROM (SELECT number, key FROM server_writes WHERE checked = 0 ORDER BY number LIMIT ?)
	) w ORDER BY w.number`, protocol.MaxWriteChecks-2)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []protocol.WriteCheck
	for rows.Next() {
		var c protocol.WriteCheck
		if err := rows.Scan(&c.Number, &c.Key, &c.Outcome); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// MarkWritesChecked marks the writes the server said it holds; a number
// since given again for another key (the desk started over) is not.
func (d *DB) MarkWritesChecked(ctx context.Context, checks []protocol.WriteCheck) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot save the sync state")
	}
	defer tx.Rollback()
	for _, c := range checks {
		if _, err := tx.ExecContext(ctx, `UPDATE server_writes SET checked = 1 WHERE number = ? AND key = ?`, c.Number, c.Key); err != nil {
			return d.wrap(err, "cannot save the sync state")
		}
	}
	return d.wrap(tx.Commit(), "cannot save the sync state")
}

func (d *DB) SetServer(ctx context.Context, station string, kinds []protocol.Kind, protocol int) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot save the sync state")
	}
	defer tx.Rollback()
	var was string
	err = tx.QueryRowContext(ctx, `SELECT value FROM sync_state WHERE key = 'server_station'`).Scan(&was)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return d.wrap(err, "cannot read the sync state")
	}
	if was != "" && was != station {
		// Another station's counter: the numbers held say nothing of it.
		if err := forgetWrites(ctx, tx); err != nil {
			return d.wrap(err, "cannot save the sync state")
		}
	}
	list, _ := json.Marshal(kinds)
	if kinds == nil {
		list = nil
	}
	for key, value := range map[string]string{"server_station": station, "server_kinds": string(list), "server_protocol": strconv.Itoa(protocol)} {
		if err := setSyncState(ctx, tx, key, value); err != nil {
			return d.wrap(err, "cannot save the sync state")
		}
	}
	return d.wrap(tx.Commit(), "cannot save the sync state")
}

func (d *DB) RecordWrite(ctx context.Context, number int64, key string) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot save the sync state")
	}
	defer tx.Rollback()
	if err := recordWrite(ctx, tx, number, key); err != nil {
		return d.wrap(err, "cannot save the sync state")
	}
	return d.wrap(tx.Commit(), "cannot save the sync state")
}

func (d *DB) ForgetWrites(ctx context.Context) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err, "cannot save the sync state")
	}
	defer tx.Rollback()
	if err := forgetWrites(ctx, tx); err != nil {
		return d.wrap(err, "cannot save the sync state")
	}
	return d.wrap(tx.Commit(), "cannot save the sync state")
}

// recordWrite keeps the server's write number of key (an event id, or a
// batch piece); a number held already for another key means the server
// gave it twice: it lost the first write (restored from a backup), and
// the desk is marked to start over at its next sync.
func recordWrite(ctx context.Context, tx *sql.Tx, number int64, key string) error {
	if number <= 0 {
		return nil
	}
	var held string
	err := tx.QueryRowContext(ctx, `INSERT INTO server_writes (number, key) VALUES (?, ?)
		ON CONFLICT (number) DO UPDATE SET key = server_writes.key RETURNING key`, number, key).Scan(&held)
	if err != nil || held == key {
		return err
	}
	return setSyncState(ctx, tx, "server_lost", "1")
}

func forgetWrites(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM server_writes`); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM sync_state WHERE key = 'server_lost'`)
	return err
}

func setSyncState(ctx context.Context, tx *sql.Tx, key, value string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO sync_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}
