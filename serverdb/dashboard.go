package serverdb

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/protocol"
)

// The dashboard's reads: a day across desks, the desks' state, conflicts
// with their resolutions, one label's history.

// A redemption is filed under the time the server decided it at, stored
// with it (events.decided_at, see central.DecideTime): always either the
// desk's time (at) or the server's (received_at), so the day's rows are
// found through the index of either.

// DayActivity counts the codes issued and the redemptions decided in
// [from, to), per desk (each with its site), and the redemptions per
// quarter hour.
func (c *DB) DayActivity(ctx context.Context, from, to int64) (central.DayActivity, error) {
	return c.SiteDayActivity(ctx, from, to, nil)
}

// SiteDayActivity is DayActivity of the desks of the sites listed (by id;
// nil: every site). A desk's figures are its site's: the site it is in
// now (a desk moved to another site takes its past days along).
//
// A desk in another time zone than the server's is counted over its own
// day of the same date, as the desk counts its figures: the bounds its
// report of that date gave (day_from, day_to: exact, a day the clocks
// change included), else [from, to) shifted by the zone offset it last
// reported, else [from, to), a day of the server's zone.
func (c *DB) SiteDayActivity(ctx context.Context, from, to int64, sites []int64) (central.DayActivity, error) {
	siteOf, err := c.stationSites(ctx)
	if err != nil {
		return central.DayActivity{}, err
	}
	reported, err := c.reportedDays(ctx, time.Unix(from, 0).Format(app.DateLayout))
	if err != nil {
		return central.DayActivity{}, err
	}
	boundsOf := func(name string) [2]int64 {
		if b, ok := reported[name]; ok {
			return b
		}
		shift := zoneShift(from, siteOf[name])
		return [2]int64{from + shift, to + shift}
	}
	groups := [][2]int64{{from, to}}
	for name := range siteOf {
		if b := boundsOf(name); !slices.Contains(groups, b) {
			groups = append(groups, b)
		}
	}
	day := central.DayActivity{Quarters: map[int64]int{}}
	desks := map[string]*central.DeskDay{}
	for _, g := range groups {
		keep := func(name string) bool {
			return (sites == nil || slices.Contains(sites, siteOf[name].ID)) && boundsOf(name) == g
		}
		if err := c.dayActivity(ctx, g[0], g[1], keep, siteOf, desks, &day); err != nil {
			return central.DayActivity{}, err
		}
	}
	for _, d := range desks {
		day.Desks = append(day.Desks, *d)
	}
	sort.Slice(day.Desks, func(i, j int) bool { return day.Desks[i].Station < day.Desks[j].Station })
	return day, nil
}

// reportedDays are the bounds of date on each desk's clock, as its report
// of that date gave them, by station name.
func (c *DB) reportedDays(ctx context.Context, date string) (map[string][2]int64, error) {
	rows, err := c.e.query(ctx, `SELECT station, day_from, day_to FROM desk_status WHERE date = ? AND day_from <> 0 AND day_to > day_from`, date)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][2]int64{}
	for rows.Next() {
		var name string
		var b [2]int64
		if err := rows.Scan(&name, &b[0], &b[1]); err != nil {
			return nil, err
		}
		out[name] = b
	}
	return out, rows.Err()
}

// zoneShift is how far the desk's day of the date that begins at from (a
// midnight of the server's zone) begins from it, by the zone offset it
// last reported: 0 for a desk in the server's zone or one that never told.
func zoneShift(from int64, st stationPlace) int64 {
	if st.UTCOffset == nil {
		return 0
	}
	_, server := time.Unix(from, 0).Zone()
	return int64(server - *st.UTCOffset)
}

// dayActivity adds to desks and day the figures of [from, to) of the desks
// keep takes.
func (c *DB) dayActivity(ctx context.Context, from, to int64, keep func(string) bool, siteOf map[string]stationPlace, desks map[string]*central.DeskDay, day *central.DayActivity) error {
	desk := func(name string) *central.DeskDay {
		if desks[name] == nil {
			desks[name] = &central.DeskDay{Station: name, Site: siteOf[name].Name, Refused: map[protocol.Outcome]int{}}
		}
		return desks[name]
	}
	rows, err := c.e.query(ctx, `SELECT issued_by, count(*) FROM codes WHERE created_at >= ? AND created_at < ? GROUP BY issued_by`, from, to)
	if err != nil {
		return err
	}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			rows.Close()
			return err
		}
		if keep(name) {
			desk(name).Issued = n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// The OR finds an offline redemption uploaded on a later day by its
	// desk time; each side uses an index. A redemption is counted as the
	// conflict says (recordOutcome): the redemption of record is the one
	// it names first, whichever desk synced first.
	rows, err = c.e.query(ctx, `SELECT station, `+recordOutcome+`, eff / `+quarter+`, count(*) FROM (
			SELECT event_id, station, outcome, decided_at AS eff FROM events
			WHERE kind = 'redeem' AND ((received_at >= ? AND received_at < ?) OR (at >= ? AND at < ?))) e
		WHERE eff >= ? AND eff < ? GROUP BY 1, 2, 3`, from, to, from, to, from, to)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var outcome protocol.Outcome
		var q int64
		var n int
		if err := rows.Scan(&name, &outcome, &q, &n); err != nil {
			return err
		}
		if !keep(name) {
			continue
		}
		d := desk(name)
		switch outcome {
		case protocol.OutcomeRedeemed:
			d.Redeemed += n
			day.Quarters[q] += n
		case protocol.OutcomeConflict:
			d.Conflicts += n
		default:
			d.Refused[outcome] += n
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return c.subtractUndone(ctx, from, to, keep, desk, day)
}

// stationPlace is where a station is: its site, and its time zone as its
// reports told it (nil: never told).
type stationPlace struct {
	central.Site
	UTCOffset *int
}

// stationSites is the place of every station, by station name.
func (c *DB) stationSites(ctx context.Context) (map[string]stationPlace, error) {
	rows, err := c.e.query(ctx, `SELECT t.name, s.id, s.name, t.utc_offset FROM stations t JOIN sites s ON s.id = t.site`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]stationPlace{}
	for rows.Next() {
		var name string
		var p stationPlace
		var offset sql.NullInt64
		if err := rows.Scan(&name, &p.ID, &p.Name, &offset); err != nil {
			return nil, err
		}
		if offset.Valid {
			o := int(offset.Int64)
			p.UTCOffset = &o
		}
		out[name] = p
	}
	return out, rows.Err()
}

const quarter = "900" // central.QuarterSeconds, in SQL

// undoReach is how long after its day an undo of a redemption is looked
// for: a supervisor undoes within minutes (the undo window), and a desk
// offline overnight uploads the next morning.
const undoReach = 2 * 24 * 3600

// subtractUndone takes the redemptions of [from, to) that were undone
// (an undo event the server accepted names them) out of the day's counts.
// Undo events are found by the time the server received them, through
// its index, within undoReach of the day.
func (c *DB) subtractUndone(ctx context.Context, from, to int64, keep func(string) bool, desk func(string) *central.DeskDay, day *central.DayActivity) error {
	const eff = `r.decided_at`
	rows, err := c.e.query(ctx, `SELECT r.station, (`+eff+`) / `+quarter+`, count(*) FROM events u
		JOIN events r ON r.event_id = u.undoes
		WHERE u.received_at >= ? AND u.received_at < ? AND u.kind = 'undo' AND u.outcome = 'undone'
			AND r.kind = 'redeem' AND r.outcome = 'redeemed' AND (`+eff+`) >= ? AND (`+eff+`) < ?
		GROUP BY r.station, (`+eff+`) / `+quarter, from, to+undoReach, from, to)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var q int64
		var n int
		if err := rows.Scan(&name, &q, &n); err != nil {
			return err
		}
		if !keep(name) {
			continue
		}
		desk(name).Redeemed -= n
		day.Quarters[q] -= n
	}
	return rows.Err()
}

// Desks returns every enrolled desk with when the server last saw it (its
// stored feed read, its latest event or report), the events waiting in its
// outbox by its latest report, and the feed's head.
func (c *DB) Desks(ctx context.Context) ([]central.DeskState, int64, error) {
	rows, err := c.e.query(ctx, `SELECT id, name, letter, created_at, revoked_at, feed_ack, feed_acked_at, site, COALESCE((SELECT name FROM sites WHERE sites.id = stations.site), ''),
		COALESCE((SELECT max(received_at) FROM events WHERE events.station = stations.name), 0),
		COALESCE((SELECT events_waiting FROM desk_status s WHERE s.station = stations.name ORDER BY received_at DESC, at DESC LIMIT 1), 0),
		COALESCE((SELECT max(received_at) FROM desk_status s WHERE s.station = stations.name), 0),
		COALESCE((SELECT not_understood FROM desk_status s WHERE s.station = stations.name ORDER BY received_at DESC, at DESC LIMIT 1), 0),
		desk_release, desk_protocol
		FROM stations ORDER BY name`)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []central.DeskState
	for rows.Next() {
		var d central.DeskState
		var acked, lastEvent int64
		if err := rows.Scan(&d.ID, &d.Name, &d.Letter, &d.CreatedAt, &d.RevokedAt, &d.FeedAck, &acked, &d.SiteID, &d.Site, &lastEvent, &d.EventsWaiting, &d.StatusAt, &d.NotUnderstood, &d.Version.Release, &d.Version.Protocol); err != nil {
			return nil, 0, err
		}
		d.LastSeenAt = max(acked, lastEvent, d.StatusAt)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if c.e.postgres {
		if err := c.placeChanges(ctx); err != nil {
			return nil, 0, err
		}
	}
	floor, err := c.feedFloor(ctx)
	if err != nil {
		return nil, 0, err
	}
	head, err := c.feedHead(ctx, floor)
	return out, head, err
}

// recordOutcome is the outcome of a redeem event e (event_id, outcome) as
// the dashboard counts it, by the one rule of the redemption of record:
// the one a conflict names first (central.RecordTakesOver). An event a
// conflict names second was displaced: it counts as the double use, even
// when it was answered "redeemed" before the other desk synced, and even
// when another conflict names it first (it took the record over, then an
// earlier use took it over again: a chain of takeovers). An event answered
// "conflict" that took the record over and kept it (named first, never
// second) counts as the redemption. Conflicts, Code lookup
// (codes.used_event), the CSV and the desks' own figures
// (store/dayfigures.go ownDoubleUse) say the same.
const recordOutcome = `CASE
		WHEN e.outcome IN ('redeemed', 'conflict') AND EXISTS (SELECT 1 FROM conflicts k WHERE k.second_event = e.event_id) THEN 'conflict'
		WHEN e.outcome = 'conflict' AND EXISTS (SELECT 1 FROM conflicts k WHERE k.first_event = e.event_id) THEN 'redeemed'
		ELSE e.outcome END`

// conflictColumns are a conflict's columns (conflicts k), its label's
// site's name (conflictSite) and the names of the sites its two desks were
// in when it was recorded (first_site, second_site; not the sites they
// were moved to since): a conflict belongs to each (ConflictRecord.Sites).
const (
	conflictColumns = `k.id, k.code, k.first_event, k.first_station, k.first_operator, k.first_at, k.second_event, k.second_station, k.second_operator, k.second_at, k.flag, k.second_code, COALESCE(s.name, ''),
		COALESCE((SELECT ds.name FROM sites ds WHERE ds.id = k.first_site), ''),
		COALESCE((SELECT ds.name FROM sites ds WHERE ds.id = k.second_site), '')`
	conflictSite = `conflicts k LEFT JOIN codes c ON c.code = k.code LEFT JOIN sites s ON s.id = c.site`
)

// ConflictRecords lists the conflicts whose first redemption is in
// [from, to) with their resolutions.
func (c *DB) ConflictRecords(ctx context.Context, from, to int64) ([]central.ConflictRecord, error) {
	rows, err := c.e.query(ctx, `SELECT `+conflictColumns+` FROM `+conflictSite+` WHERE k.first_at >= ? AND k.first_at < ? ORDER BY k.first_at, k.id`, from, to)
	if err != nil {
		return nil, err
	}
	list, err := scanConflictRecords(rows)
	if err != nil {
		return nil, err
	}
	return list, c.addResolutions(ctx, list, `SELECT r.conflict_id, r.admin, r.note, r.at FROM conflict_resolutions r
		JOIN conflicts k ON k.id = r.conflict_id WHERE k.first_at >= ? AND k.first_at < ? ORDER BY r.id`, from, to)
}

func scanConflictRecords(rows *sql.Rows) ([]central.ConflictRecord, error) {
	defer rows.Close()
	out := []central.ConflictRecord{}
	for rows.Next() {
		var k central.ConflictRecord
		var first, second string
		if err := rows.Scan(&k.ID, &k.Code, &k.FirstEvent, &k.FirstStation, &k.FirstOperator, &k.FirstAt, &k.SecondEvent, &k.SecondStation, &k.SecondOperator, &k.SecondAt, &k.Flag, &k.SecondCode, &k.Site, &first, &second); err != nil {
			return nil, err
		}
		for _, site := range []string{k.Site, first, second} {
			if site != "" && !slices.Contains(k.Sites, site) {
				k.Sites = append(k.Sites, site)
			}
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// addResolutions attaches the resolutions query selects (conflict id,
// admin, note, at) to their conflicts in list.
func (c *DB) addResolutions(ctx context.Context, list []central.ConflictRecord, query string, args ...any) error {
	if len(list) == 0 {
		return nil
	}
	byID := map[int64]*central.ConflictRecord{}
	for i := range list {
		byID[list[i].ID] = &list[i]
	}
	rows, err := c.e.query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var r central.Resolution
		if err := rows.Scan(&id, &r.Admin, &r.Note, &r.At); err != nil {
			return err
		}
		if k := byID[id]; k != nil {
			k.Resolutions = append(k.Resolutions, r)
		}
	}
	return rows.Err()
}

// ResolveConflict adds a resolution to a conflict, and a line to the
// administrators' audit trail. Nothing is ever deleted: a conflict resolved
// twice keeps both notes.
func (c *DB) ResolveConflict(ctx context.Context, id int64, r central.Resolution) error {
	if err := central.ValidateNote(r.Note); err != nil {
		return err
	}
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	var code string
	if err := tx.queryRow(ctx, `SELECT code FROM conflicts WHERE id = ?`, id).Scan(&code); errors.Is(err, sql.ErrNoRows) {
		return central.ErrNoConflict
	} else if err != nil {
		return err
	}
	if _, err := tx.exec(ctx, `INSERT INTO conflict_resolutions (conflict_id, admin, note, at) VALUES (?, ?, ?, ?)`, id, r.Admin, r.Note, r.At); err != nil {
		return err
	}
	if err := logAdmin(ctx, tx, central.AdminAction{At: r.At, Admin: r.Admin, Action: "resolve", Subject: code, Detail: r.Note}); err != nil {
		return err
	}
	return tx.commit()
}

// ConflictSite returns the name of the site of a conflict's label;
// central.ErrNoConflict.
func (c *DB) ConflictSite(ctx context.Context, id int64) (string, error) {
	var site string
	err := c.e.queryRow(ctx, `SELECT COALESCE(s.name, '') FROM `+conflictSite+` WHERE k.id = ?`, id).Scan(&site)
	if errors.Is(err, sql.ErrNoRows) {
		return "", central.ErrNoConflict
	}
	return site, err
}

// CodeHistory returns a label's state, every event of it from any desk, and
// its conflicts; central.ErrNoCode when the server has no such label.
func (c *DB) CodeHistory(ctx context.Context, code string) (central.CodeHistory, error) {
	var h central.CodeHistory
	s := &h.Code
	err := c.e.queryRow(ctx, `SELECT code, issued_by, status, expire_at, created_at, used_at, used_station, used_operator, used_event, disabled_reason, ref, batch,
		COALESCE((SELECT name FROM sites WHERE sites.id = codes.site), '')
		FROM codes WHERE code = ?`, code).Scan(&s.Code, &s.IssuedBy, &s.Status, &s.ExpireAt, &s.CreatedAt, &s.UsedAt, &s.UsedStation, &s.UsedOperator, &s.UsedEvent, &s.DisabledReason, &s.Ref, &h.Batch, &h.Site)
	if errors.Is(err, sql.ErrNoRows) {
		return h, central.ErrNoCode
	}
	if err != nil {
		return h, err
	}
	rows, err := c.e.query(ctx, `SELECT event_id, station, kind, operator, at, received_at, offline, outcome, reason, flag FROM events WHERE code = ? ORDER BY received_at, id`, code)
	if err != nil {
		return h, err
	}
	for rows.Next() {
		var e central.EventRecord
		if err := rows.Scan(&e.EventID, &e.Station, &e.Kind, &e.Operator, &e.At, &e.ReceivedAt, &e.Offline, &e.Outcome, &e.Reason, &e.Flag); err != nil {
			rows.Close()
			return h, err
		}
		h.Events = append(h.Events, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return h, err
	}
	rows, err = c.e.query(ctx, `SELECT `+conflictColumns+` FROM `+conflictSite+` WHERE k.code = ? OR k.second_code = ? ORDER BY k.id`, code, code)
	if err != nil {
		return h, err
	}
	if h.Conflicts, err = scanConflictRecords(rows); err != nil {
		return h, err
	}
	return h, c.addResolutions(ctx, h.Conflicts, `SELECT r.conflict_id, r.admin, r.note, r.at FROM conflict_resolutions r
		JOIN conflicts k ON k.id = r.conflict_id WHERE k.code = ? OR k.second_code = ? ORDER BY r.id`, code, code)
}

// logAdmin adds a line to the administrators' audit trail.
func logAdmin(ctx context.Context, tx *etx, a central.AdminAction) error {
	_, err := tx.exec(ctx, `INSERT INTO admin_log (at, admin, action, subject, detail) VALUES (?, ?, ?, ?, ?)`,
		a.At, a.Admin, a.Action, a.Subject, strings.TrimSpace(a.Detail))
	return err
}
