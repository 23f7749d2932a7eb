package serverdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"qrdesk/central"
	"qrdesk/protocol"
)

// Sites: each station belongs to one (stations.site), and so does each
// label (codes.site: the site of the station that uploaded it) and each
// feed change (changes.site: its label's; 0 for the deployment-wide staff
// list). A desk reads only its site's feed (SiteChanges) and snapshot.

// AddSite adds a site; ErrSiteExists when the name (any case) is taken.
func (c *DB) AddSite(ctx context.Context, name string, at int64) error {
	name = strings.TrimSpace(name)
	if err := central.ValidateSiteName(name); err != nil {
		return err
	}
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	if _, err := tx.exec(ctx, `INSERT INTO sites (name, created_at) VALUES (?, ?)`, name, at); isUniqueAny(err) {
		return central.ErrSiteExists
	} else if err != nil {
		return err
	}
	if err := forgetFormerName(ctx, tx, name); err != nil {
		return err
	}
	return tx.commit()
}

// RenameSite renames a site (an upgraded deployment's 'main', say). Its
// old name is kept as a former name (site_former_names): a close a desk
// made under it before hearing of the rename is its site's close.
func (c *DB) RenameSite(ctx context.Context, old, name string) error {
	defer c.stationsChanged()
	name = strings.TrimSpace(name)
	if err := central.ValidateSiteName(name); err != nil {
		return err
	}
	id, err := c.siteID(ctx, old)
	if err != nil {
		return err
	}
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	var was string
	if err := tx.queryRow(ctx, `SELECT name FROM sites WHERE id = ?`, id).Scan(&was); err != nil {
		return err
	}
	if _, err := tx.exec(ctx, `UPDATE sites SET name = ? WHERE id = ?`, name, id); isUniqueAny(err) {
		return central.ErrSiteExists
	} else if err != nil {
		return err
	}
	if err := forgetFormerName(ctx, tx, name); err != nil {
		return err
	}
	if was != name {
		if _, err := tx.exec(ctx, `INSERT INTO site_former_names (name, site) VALUES (?, ?)
			ON CONFLICT (name) DO UPDATE SET site = excluded.site`, was, id); err != nil {
			return err
		}
	}
	return tx.commit()
}

// forgetFormerName drops name as a former name once a site holds it again:
// a close under it is that site's from then on, not ambiguous.
func forgetFormerName(ctx context.Context, tx *etx, name string) error {
	_, err := tx.exec(ctx, `DELETE FROM site_former_names WHERE lower(name) = lower(?)`, name)
	return err
}

// wasSiteName reports whether name is a former name of site id.
func wasSiteName(ctx context.Context, tx *etx, name string, id int64) (bool, error) {
	var n int
	err := tx.queryRow(ctx, `SELECT count(*) FROM site_former_names WHERE name = ? AND site = ?`, name, id).Scan(&n)
	return n > 0, err
}

// Sites lists the sites by name, with how many stations each has.
func (c *DB) Sites(ctx context.Context) ([]central.Site, error) {
	rows, err := c.e.query(ctx, `SELECT s.id, s.name, s.created_at, (SELECT count(*) FROM stations t WHERE t.site = s.id)
		FROM sites s ORDER BY s.name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []central.Site
	for rows.Next() {
		var s central.Site
		if err := rows.Scan(&s.ID, &s.Name, &s.CreatedAt, &s.Stations); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// siteID finds a site by name (any case); "" is the first site (the one an
// upgraded deployment became). A *central.NoSite when there is none.
func (c *DB) siteID(ctx context.Context, name string) (int64, error) {
	var id int64
	var err error
	if name == "" {
		err = c.e.queryRow(ctx, `SELECT min(id) FROM sites`).Scan(&id)
	} else {
		err = c.e.queryRow(ctx, `SELECT id FROM sites WHERE lower(name) = lower(?)`, strings.TrimSpace(name)).Scan(&id)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return 0, &central.NoSite{Name: name}
	}
	return id, err
}

// SetStationSite moves a station to another site. Its desk starts over
// from the new site's snapshot at its next sync (stations.site_from is set
// until it has); the labels it uploaded before stay in the site they were
// issued in.
func (c *DB) SetStationSite(ctx context.Context, station, site string) error {
	defer c.stationsChanged()
	id, err := c.siteID(ctx, site)
	if err != nil {
		return err
	}
	if c.e.postgres {
		if err := c.placeChanges(ctx); err != nil {
			return err
		}
	}
	_, head, err := c.FeedBounds(ctx)
	if err != nil {
		return err
	}
	res, err := c.e.exec(ctx, `UPDATE stations SET site = ?, site_from = ? WHERE name = ? AND site <> ?`, id, head+1, station, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var cur int64
		if err := c.e.queryRow(ctx, `SELECT site FROM stations WHERE name = ?`, station).Scan(&cur); err != nil {
			return central.ErrNoStation
		}
		return central.Badf("station %q is in site %q already", station, site)
	}
	return nil
}

// CrossSiteOffline returns the deployment's setting for a label of another
// site scanned offline (protocol.CrossSiteDecide unless set).
func (c *DB) CrossSiteOffline(ctx context.Context) (string, error) {
	var v string
	err := c.e.queryRow(ctx, `SELECT value FROM deployment WHERE key = 'cross_site_offline'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return protocol.CrossSiteDecide, nil
	}
	return v, err
}

// SetCrossSiteOffline stores the setting; desks learn it at their next
// enrolment (every sync begins with one).
func (c *DB) SetCrossSiteOffline(ctx context.Context, v string) error {
	if err := central.CheckCrossSiteOffline(v); err != nil {
		return err
	}
	_, err := c.e.exec(ctx, `INSERT INTO deployment (key, value) VALUES ('cross_site_offline', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, v)
	return err
}

// stationLetters is every letter a station can hold ('A', …, 'Z'): naming
// them lets both engines read the stations that hold one through the
// partial index stations_letter instead of scanning every station (every
// desk's enrolment asks: 1,000 desks syncing every 5 s scanned 1,000 rows
// 200 times a second on PostgreSQL, a fifth of its work).
var stationLetters = func() string {
	var b strings.Builder
	for l := 'A'; l <= 'Z'; l++ {
		if l > 'A' {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "'%c'", l)
	}
	return b.String()
}()

func (c *DB) SiteInfo(ctx context.Context, st central.Station) (protocol.SiteInfo, error) {
	info := protocol.SiteInfo{Site: st.Site, Letters: map[string]string{}}
	var err error
	if info.CrossSiteOffline, err = c.CrossSiteOffline(ctx); err != nil {
		return info, err
	}
	rows, err := c.e.query(ctx, `SELECT t.letter, s.name FROM stations t JOIN sites s ON s.id = t.site WHERE t.letter <> '' AND t.letter IN (`+stationLetters+`)`)
	if err != nil {
		return info, err
	}
	defer rows.Close()
	for rows.Next() {
		var letter, site string
		if err := rows.Scan(&letter, &site); err != nil {
			return info, err
		}
		info.Letters[letter] = site
	}
	return info, rows.Err()
}

func (c *DB) SiteMoveSeen(ctx context.Context, stationID int64) error {
	defer c.stationsChanged()
	_, err := c.e.exec(ctx, `UPDATE stations SET site_from = 0 WHERE id = ? AND site_from <> 0`, stationID)
	return err
}

func (c *DB) LabelSite(ctx context.Context, code string) (central.LabelPlace, bool, error) {
	var l central.LabelPlace
	err := c.e.queryRow(ctx, `SELECT s.id, s.name, c.expire_at, c.created_at FROM codes c JOIN sites s ON s.id = c.site WHERE c.code = ?`, code).Scan(&l.Site, &l.SiteName, &l.ExpireAt, &l.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return l, false, nil
	}
	return l, err == nil, err
}

// SiteChanges reads the site's feed through the index on (site,
// position): two ordered range scans (the site's changes and the
// deployment-wide ones) merged, never a scan of other sites' changes.
func (c *DB) SiteChanges(ctx context.Context, site, after int64, limit int) ([]protocol.Change, error) {
	return c.changes(ctx, site, after, limit)
}
