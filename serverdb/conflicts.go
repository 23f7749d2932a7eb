package serverdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/protocol"
)

// deskSites are the values of a new conflict's first_site and second_site,
// given its first and second station: the sites its desks are in now, when
// it happened. A conflict belongs to them for good (ConflictRecord.Sites),
// wherever its desks are moved later.
const deskSites = `COALESCE((SELECT site FROM stations WHERE name = ?), 0), COALESCE((SELECT site FROM stations WHERE name = ?), 0)`

// conflict records a label redeemed offline that was used already.
func (c *DB) conflict(ctx context.Context, tx *etx, st central.Station, ev protocol.Event, cc centralCode, when int64, note central.Note, now int64) (protocol.Result, error) {
	k := protocol.Conflict{Code: ev.Code, FirstEvent: cc.usedEvent, FirstStation: cc.usedStation, FirstOperator: cc.usedOperator, FirstAt: cc.usedAt,
		SecondEvent: ev.EventID, SecondStation: st.Name, SecondOperator: ev.Operator, SecondAt: when, Flag: note.Text}
	// The redemption of record may already be the second use of an earlier
	// conflict (a restore, then the desks' events sent again in another
	// order): its double use is recorded, so this one is recorded against
	// it and does not take over (a second_event names one conflict).
	var alreadySecond int
	if err := tx.queryRow(ctx, `SELECT count(*) FROM conflicts WHERE second_event = ?`, cc.usedEvent).Scan(&alreadySecond); err != nil {
		return protocol.Result{}, err
	}
	// A new event is the second use of no conflict yet, unless this very
	// decision recorded one for its entitlement: that one stands. When this
	// one takes over, the one it displaces must not be a second use yet: on
	// PostgreSQL two events racing to take over the same record meet on
	// second_event UNIQUE, and the loser is decided again (Apply).
	insert := `INSERT INTO conflicts (code, first_event, first_station, first_operator, first_at, second_event, second_station, second_operator, second_at, detected_at, flag, first_site, second_site)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ` + deskSites + `) ON CONFLICT DO NOTHING`
	if alreadySecond == 0 && central.RecordTakesOver(note, when, cc.usedAt) { // this one came first: it becomes the redemption of record
		insert = strings.TrimSuffix(insert, " ON CONFLICT DO NOTHING")
		k = protocol.Conflict{Code: ev.Code, FirstEvent: ev.EventID, FirstStation: st.Name, FirstOperator: ev.Operator, FirstAt: when,
			SecondEvent: cc.usedEvent, SecondStation: cc.usedStation, SecondOperator: cc.usedOperator, SecondAt: cc.usedAt}
		if _, err := tx.exec(ctx, `UPDATE codes SET used_at = ?, used_station = ?, used_operator = ?, used_event = ? WHERE code = ?`,
			when, st.Name, ev.Operator, ev.EventID, ev.Code); err != nil {
			return protocol.Result{}, err
		}
	}
	if _, err := tx.exec(ctx, insert, k.Code, k.FirstEvent, k.FirstStation, k.FirstOperator, k.FirstAt,
		k.SecondEvent, k.SecondStation, k.SecondOperator, k.SecondAt, now, k.Flag, k.FirstStation, k.SecondStation); err != nil {
		return protocol.Result{}, err
	}
	// The change carries the label's status after it, as a redeem change
	// does: it is the change of the second use's event, written to that
	// desk's site after the event, so a desk that read an older change of
	// the label after its answer (a close's expiry, sent to its site while
	// another desk there held the label) ends on the server's status.
	data, _ := json.Marshal(struct {
		protocol.Conflict
		Status app.Status `json:"status"`
	}{k, app.StatusUsed})
	if err := c.addChanges(ctx, tx, change{protocol.KindConflict, ev.Code, st.Name, string(data)}); err != nil {
		return protocol.Result{}, err
	}
	return protocol.Result{Outcome: protocol.OutcomeConflict, UsedAt: k.FirstAt, UsedStation: k.FirstStation, UsedOperator: k.FirstOperator,
		Reason: "redeemed at two desks while they could not both reach the server", Status: string(app.StatusUsed)}, nil
}

func (c *DB) Conflicts(ctx context.Context, from, to int64) ([]protocol.Conflict, error) {
	rows, err := c.e.query(ctx, `SELECT code, first_event, first_station, first_operator, first_at, second_event, second_station, second_operator, second_at, flag, second_code
		FROM conflicts WHERE first_at >= ? AND first_at < ? ORDER BY first_at, id`, from, to)
	if err != nil {
		return nil, err
	}
	return scanConflicts(rows)
}

// scanConflicts reads conflict rows selected in the order of their fields.
func scanConflicts(rows *sql.Rows) ([]protocol.Conflict, error) {
	defer rows.Close()
	out := []protocol.Conflict{}
	for rows.Next() {
		var k protocol.Conflict
		if err := rows.Scan(&k.Code, &k.FirstEvent, &k.FirstStation, &k.FirstOperator, &k.FirstAt, &k.SecondEvent, &k.SecondStation, &k.SecondOperator, &k.SecondAt, &k.Flag, &k.SecondCode); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}
