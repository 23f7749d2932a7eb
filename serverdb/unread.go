package serverdb

import "context"

// UnreadCap bounds the count of a desk's unread changes: a desk that far
// behind is shown as "UnreadCap or more" rather than counted to the end.
const UnreadCap = 10_000

// UnreadChanges counts the changes a desk of site has yet to read after
// its cursor: its site's and the deployment-wide ones, the changes its
// feed carries (other sites' changes in between are not its to read).
// Two ordered range scans of the index on (site, position), each stopped
// at UnreadCap; capped reports a count cut there.
func (c *DB) UnreadChanges(ctx context.Context, site, after int64) (n int64, capped bool, err error) {
	col := c.feedColumn()
	count := `SELECT count(*) FROM (SELECT 1 FROM changes WHERE site = ? AND ` + col + ` > ? LIMIT ?) AS unread`
	for _, s := range []int64{site, 0} {
		var k int64
		if err := c.e.queryRow(ctx, count, s, after, UnreadCap).Scan(&k); err != nil {
			return 0, false, err
		}
		n += k
		if s == 0 {
			break
		}
	}
	if n >= UnreadCap {
		return UnreadCap, true, nil
	}
	return n, false, nil
}
