package serverdb

import (
	"context"

	"qrdesk/protocol"
)

// FlaggedEvent is an event the server did not take at its word.
type FlaggedEvent struct {
	EventID    string        `json:"event_id"`
	Station    string        `json:"station"`
	Kind       protocol.Kind `json:"kind"`
	Code       string        `json:"code"`
	Flag       string        `json:"flag"`
	At         int64         `json:"at"`          // what the desk said
	ReceivedAt int64         `json:"received_at"` // the server's clock, the time it was decided at
	Site       string        `json:"site"`        // the desk's site now ("" for a desk no longer on record)
}

// FlaggedEvents lists the events received in [from, to) with a flag, for
// the report.
func (c *DB) FlaggedEvents(ctx context.Context, from, to int64) ([]FlaggedEvent, error) {
	rows, err := c.e.query(ctx, `SELECT e.event_id, e.station, e.kind, e.code, e.flag, e.at, e.received_at, COALESCE(s.name, '')
		FROM events e LEFT JOIN stations t ON t.name = e.station LEFT JOIN sites s ON s.id = t.site
		WHERE e.flag <> '' AND e.received_at >= ? AND e.received_at < ? ORDER BY e.received_at, e.id`, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FlaggedEvent
	for rows.Next() {
		var f FlaggedEvent
		if err := rows.Scan(&f.EventID, &f.Station, &f.Kind, &f.Code, &f.Flag, &f.At, &f.ReceivedAt, &f.Site); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}
