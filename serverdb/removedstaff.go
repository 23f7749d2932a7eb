package serverdb

import (
	"context"
	"fmt"

	"qrdesk/central"
)

// RemovedStaffWork lists the events by operators the staff list had
// removed (central.FlagRemovedStaff) decided in [from, to), by the flag's
// bit, never its wording, each with its label's site.
func (c *DB) RemovedStaffWork(ctx context.Context, from, to int64) ([]central.RemovedStaffWork, error) {
	rows, err := c.e.query(ctx, fmt.Sprintf(`SELECT e.event_id, e.kind, e.code, e.station, e.operator, e.decided_at, e.outcome, e.flag, COALESCE(s.name, '')
		FROM events e LEFT JOIN codes c ON c.code = e.code LEFT JOIN sites s ON s.id = c.site
		WHERE (e.flags & %d) <> 0 AND e.decided_at >= ? AND e.decided_at < ?
		ORDER BY e.decided_at, e.id`, central.FlagRemovedStaff), from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []central.RemovedStaffWork{}
	for rows.Next() {
		var w central.RemovedStaffWork
		if err := rows.Scan(&w.EventID, &w.Kind, &w.Code, &w.Station, &w.Operator, &w.DecidedAt, &w.Outcome, &w.Flag, &w.Site); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}
