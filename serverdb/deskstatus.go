package serverdb

import (
	"context"
	"encoding/json"
	"fmt"

	"qrdesk/app"
	"qrdesk/central"
)

// SetDeskStatus keeps the latest report per desk and day. A report that
// arrives late (a retry overtaken by the next sync) has an older desk time
// and leaves the newer one in place.
func (c *DB) SetDeskStatus(ctx context.Context, s central.DeskStatus) error {
	tx, err := c.e.begin(ctx) // through the writer queue, as every SQLite write
	if err != nil {
		return err
	}
	defer tx.done()
	refused := ""
	if s.RefusedHere != nil {
		data, err := json.Marshal(s.RefusedHere)
		if err != nil {
			return err
		}
		refused = string(data)
	}
	if _, err := tx.exec(ctx, `INSERT INTO desk_status (station, date, events_waiting, print_jobs, labels_printed, reprints, at, received_at, refused_here, not_understood, day_from, day_to)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (station, date) DO UPDATE SET events_waiting = excluded.events_waiting, print_jobs = excluded.print_jobs,
			labels_printed = excluded.labels_printed, reprints = excluded.reprints, at = excluded.at, received_at = excluded.received_at,
			refused_here = excluded.refused_here, not_understood = excluded.not_understood, day_from = excluded.day_from, day_to = excluded.day_to
		WHERE excluded.at >= desk_status.at`,
		s.Station, s.Date, s.EventsWaiting, s.PrintJobs, s.LabelsPrinted, s.Reprints, s.At, s.ReceivedAt, refused, s.NotUnderstood, s.DayFrom, s.DayTo); err != nil {
		return err
	}
	if s.UTCOffset != nil {
		// Written only when it changes: most reports tell the same zone.
		if _, err := tx.exec(ctx, `UPDATE stations SET utc_offset = ? WHERE name = ? AND (utc_offset IS NULL OR utc_offset <> ?)`, *s.UTCOffset, s.Station, *s.UTCOffset); err != nil {
			return err
		}
	}
	return tx.commit()
}

// DeskStatuses returns the desks' reports of a label day, by station name,
// each with its desk's site.
func (c *DB) DeskStatuses(ctx context.Context, date string) ([]central.DeskStatus, error) {
	rows, err := c.e.query(ctx, `SELECT d.station, d.date, d.events_waiting, d.print_jobs, d.labels_printed, d.reprints, d.at, d.received_at, d.refused_here, d.not_understood,
			COALESCE(s.name, '')
		FROM desk_status d LEFT JOIN stations t ON t.name = d.station LEFT JOIN sites s ON s.id = t.site
		WHERE d.date = ? ORDER BY d.station`, date)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []central.DeskStatus
	for rows.Next() {
		var s central.DeskStatus
		var refused string
		if err := rows.Scan(&s.Station, &s.Date, &s.EventsWaiting, &s.PrintJobs, &s.LabelsPrinted, &s.Reprints, &s.At, &s.ReceivedAt, &refused, &s.NotUnderstood, &s.Site); err != nil {
			return nil, err
		}
		if refused != "" {
			s.RefusedHere = new(app.DeskRefusals)
			if err := json.Unmarshal([]byte(refused), s.RefusedHere); err != nil {
				return nil, fmt.Errorf("desk %s's report of %s: %w", s.Station, s.Date, err)
			}
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
