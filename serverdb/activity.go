package serverdb

import (
	"context"
	"database/sql"
	"strconv"

	"qrdesk/central"
)

// What the server's metrics and readiness check read. Each is a handful of
// small queries, run at a scrape (every 15 s or so), never per request.

// Ping reports whether the database answers a query (not only whether a
// pooled connection is open): SQLite reads the file, PostgreSQL makes a
// round trip to the node that takes writes.
func (c *DB) Ping(ctx context.Context) error {
	var n int
	return c.e.queryRow(ctx, `SELECT count(*) FROM deployment`).Scan(&n)
}

// Engine names the database engine: "sqlite" or "postgresql".
func (c *DB) Engine() string {
	if c.e.postgres {
		return "postgresql"
	}
	return "sqlite"
}

// PoolStats are the connection pool's statistics.
func (c *DB) PoolStats() sql.DBStats { return c.e.db.Stats() }

// Activity reads the feed position, the number of conflicts, the events
// waiting for a commit and every desk's last contact.
func (c *DB) Activity(ctx context.Context) (central.Activity, error) {
	var a central.Activity
	floor, err := c.feedFloor(ctx)
	if err != nil {
		return a, err
	}
	if c.e.postgres {
		// Place what committed since the last feed read, so the position
		// is what a desk asking now would be given.
		if err := c.placeChanges(ctx); err != nil {
			return a, err
		}
	}
	if a.FeedPosition, err = c.feedHead(ctx, floor); err != nil {
		return a, err
	}
	if err := c.conflictsBySite(ctx, &a); err != nil {
		return a, err
	}
	if a.Backup, err = c.BackupRecord(ctx); err != nil {
		return a, err
	}
	if !c.e.postgres {
		c.groupOnce.Do(c.startCommitter) // a no-op once an event was applied
		a.EventsWaiting = len(c.jobs)
	}
	rows, err := c.e.query(ctx, `SELECT t.id, t.name, COALESCE(s.name, ''), t.revoked_at, t.feed_ack, t.feed_acked_at FROM stations t LEFT JOIN sites s ON s.id = t.site ORDER BY t.id`)
	if err != nil {
		return a, err
	}
	defer rows.Close()
	for rows.Next() {
		var d central.DeskActivity
		var revokedAt int64
		if err := rows.Scan(&d.ID, &d.Name, &d.Site, &revokedAt, &d.FeedAck, &d.FeedAckedAt); err != nil {
			return a, err
		}
		d.Revoked = revokedAt != 0
		a.Desks = append(a.Desks, d)
	}
	return a, rows.Err()
}

// conflictsBySite counts the conflicts by their label's site, and lists
// the sites (a site without conflicts counts 0).
func (c *DB) conflictsBySite(ctx context.Context, a *central.Activity) error {
	a.ConflictsBySite = map[string]int64{}
	rows, err := c.e.query(ctx, `SELECT name FROM sites ORDER BY name`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		a.Sites = append(a.Sites, name)
		a.ConflictsBySite[name] = 0
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = c.e.query(ctx, `SELECT COALESCE(s.name, ''), count(*) FROM `+conflictSite+` GROUP BY s.name`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var site string
		var n int64
		if err := rows.Scan(&site, &n); err != nil {
			return err
		}
		a.ConflictsBySite[site] += n
		a.Conflicts += n
	}
	return rows.Err()
}

// ProbeWrite writes one row (the time of the probe, in the deployment
// table) to see whether the database takes writes now: a read-only file,
// a full disk or a PostgreSQL standby answers Ping but fails every desk's
// write. The readiness check calls it, at most about once a second.
func (c *DB) ProbeWrite(ctx context.Context, at int64) error {
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	if _, err := tx.exec(ctx, `INSERT INTO deployment (key, value) VALUES ('ready_probe', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, strconv.FormatInt(at, 10)); err != nil {
		return err
	}
	return tx.commit()
}
