package serverdb

import (
	"context"
	"fmt"

	"qrdesk/central"
)

// LateRedemptions lists the offline redemptions past expiry
// (central.FlagAfterExpiry) decided in [from, to), by the flag's bit, never
// its wording.
func (c *DB) LateRedemptions(ctx context.Context, from, to int64) ([]central.LateRedemption, error) {
	rows, err := c.e.query(ctx, fmt.Sprintf(`SELECT e.event_id, e.code, e.station, e.operator, c.expire_at, e.decided_at, e.flags, e.flag, s.name
		FROM events e JOIN codes c ON c.code = e.code JOIN sites s ON s.id = c.site
		WHERE e.kind = 'redeem' AND (e.flags & %d) <> 0 AND e.decided_at >= ? AND e.decided_at < ?
		ORDER BY e.decided_at, e.id`, central.FlagAfterExpiry), from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []central.LateRedemption{}
	for rows.Next() {
		var l central.LateRedemption
		if err := rows.Scan(&l.EventID, &l.Code, &l.Station, &l.Operator, &l.ExpireAt, &l.DecidedAt, &l.Flags, &l.Flag, &l.Site); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}
