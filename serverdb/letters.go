package serverdb

import (
	"context"
	"errors"
	"fmt"

	"qrdesk/central"
	"qrdesk/protocol"
)

// The first release enrolled stations without letters; the upgrade gave
// them the empty letter and the server now refuses their batches until each has
// one. bindLetters, at every open, binds to each station without a letter
// the one letter its uploaded codes carry, when that letter is free: no
// other station holds it and no other station's codes carry it. What it
// cannot bind, Unbound says why (station list, the dashboard's Desks
// page); a station that uploaded nothing gets its letter at its first
// upload (BindLetterAtUpload).
const bindLettersSQL = `
WITH cand AS (
	SELECT issued_by AS name, min(station_id) AS letter FROM codes
	WHERE station_id IS NOT NULL AND station_id <> ''
		AND issued_by IN (SELECT name FROM stations WHERE letter = '')
	GROUP BY issued_by HAVING count(DISTINCT station_id) = 1
), free AS (
	SELECT cand.name, cand.letter FROM cand
	WHERE NOT EXISTS (SELECT 1 FROM stations o WHERE o.letter = cand.letter)
		AND NOT EXISTS (SELECT 1 FROM codes c WHERE c.station_id = cand.letter AND c.issued_by <> cand.name)
)
UPDATE stations SET letter = (SELECT free.letter FROM free WHERE free.name = stations.name)
WHERE letter = '' AND name IN (SELECT name FROM free)`

func (c *DB) bindLetters(ctx context.Context) error {
	var n int
	if err := c.e.queryRow(ctx, `SELECT count(*) FROM stations WHERE letter = ''`).Scan(&n); err != nil || n == 0 {
		return err
	}
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	if _, err := tx.exec(ctx, bindLettersSQL); err != nil {
		return fmt.Errorf("bind the letters of stations enrolled without one: %w", err)
	}
	return tx.commit()
}

// BindLetterAtUpload binds letter to a station without one at its first
// upload, when no other station holds the letter; it reports whether the
// station has the letter now.
func (c *DB) BindLetterAtUpload(ctx context.Context, st central.Station, letter string) (bool, error) {
	if st.Letter != "" {
		return st.Letter == letter, nil
	}
	err := c.SetStationLetter(ctx, st.Name, letter)
	var taken *central.LetterTaken
	var bad *central.BadRequest
	if errors.As(err, &taken) || errors.As(err, &bad) {
		return false, nil
	}
	return err == nil, err
}

// Unbound lists the active stations without a letter and why none was
// bound.
func (c *DB) Unbound(ctx context.Context) ([]central.Unbound, error) {
	rows, err := c.e.query(ctx, `SELECT s.name, COALESCE(c.station_id, ''), COALESCE(o.name, '')
		FROM stations s
		LEFT JOIN (SELECT DISTINCT issued_by, station_id FROM codes WHERE station_id IS NOT NULL AND station_id <> '') c ON c.issued_by = s.name
		LEFT JOIN stations o ON o.letter = c.station_id AND o.letter <> ''
		WHERE s.letter = '' AND s.revoked_at = 0
		ORDER BY s.name, c.station_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []central.Unbound
	for rows.Next() {
		var name, letter, holder string
		if err := rows.Scan(&name, &letter, &holder); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Name != name {
			out = append(out, central.Unbound{Name: name})
		}
		u := &out[len(out)-1]
		if letter != "" {
			u.Letters = append(u.Letters, letter)
		}
		if holder != "" {
			u.HeldBy = append(u.HeldBy, holder)
		}
	}
	return out, rows.Err()
}

// KeepHeldSerials keeps the serials a desk holds labels of (max), as it
// tells them once it found that the server lost history.
func (c *DB) KeepHeldSerials(ctx context.Context, held []protocol.LetterSerialMark) error {
	if len(held) == 0 {
		return nil
	}
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	for _, m := range held {
		if _, err := tx.exec(ctx, `INSERT INTO held_serials (station_id, label_date, prefix, serial) VALUES (?, ?, ?, ?)
			ON CONFLICT (station_id, label_date, prefix) DO UPDATE SET serial = CASE WHEN excluded.serial > held_serials.serial THEN excluded.serial ELSE held_serials.serial END`,
			m.Letter, m.Date, m.Prefix, m.Serial); err != nil {
			return fmt.Errorf("keep the serials a desk holds: %w", err)
		}
	}
	return tx.commit()
}

// SerialMarks returns the highest serial held for letter per label date
// and prefix, for the label dates from from (YYYY-MM-DD) on (see
// protocol.Enrolment.Serials): of its codes (one index range,
// codes_letter_serial) and of what desks told it they hold after it lost
// history (KeepHeldSerials).
func (c *DB) SerialMarks(ctx context.Context, letter, from string) ([]protocol.SerialMark, error) {
	if letter == "" {
		return nil, nil
	}
	rows, err := c.e.query(ctx, `SELECT label_date, prefix, MAX(serial) FROM (
			SELECT label_date, prefix, serial FROM codes WHERE station_id = ? AND label_date >= ? AND serial IS NOT NULL
			UNION ALL SELECT label_date, prefix, serial FROM held_serials WHERE station_id = ? AND label_date >= ?
		) m GROUP BY label_date, prefix ORDER BY label_date, prefix`, letter, from, letter, from)
	if err != nil {
		return nil, fmt.Errorf("read the highest serials of letter %s: %w", letter, err)
	}
	defer rows.Close()
	var out []protocol.SerialMark
	for rows.Next() {
		var m protocol.SerialMark
		if err := rows.Scan(&m.Date, &m.Prefix, &m.Serial); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
