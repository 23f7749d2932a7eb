package store

import "context"

// RedemptionTimes returns the Unix times of the redemptions in [from, to).
func (d *DB) RedemptionTimes(ctx context.Context, from, to int64) ([]int64, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT redeemed_at FROM redemptions WHERE redeemed_at >= ? AND redeemed_at < ? ORDER BY redeemed_at`, from, to)
	if err != nil {
		return nil, d.wrap(err, "cannot count the redemptions by hour")
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var at int64
		if err := rows.Scan(&at); err != nil {
			return nil, d.wrap(err, "cannot count the redemptions by hour")
		}
		out = append(out, at)
	}
	return out, d.wrap(rows.Err(), "cannot count the redemptions by hour")
}
