package serverdb

import (
	"context"
	"strings"

	"qrdesk/central"
	"qrdesk/protocol"
)

// HoldsWrites checks the writes a desk names at its enrolment (see
// central.Store): an event of the station under each number, or, for a
// batch upload, its first code (a batch's number is not stored). Two
// reads by key, whatever the count (protocol.MaxWriteChecks at most).
func (c *DB) HoldsWrites(ctx context.Context, st central.Station, checks []protocol.WriteCheck) (bool, error) {
	events := map[string]protocol.WriteCheck{} // event id → the number (and answer) the desk holds for it
	codes := map[string]bool{}                 // first codes of batch uploads
	for _, ch := range checks {
		if ch.Number <= 0 || ch.Key == "" {
			continue
		}
		if code := protocol.BatchWriteCode(ch.Key); code != "" {
			codes[code] = true
		} else {
			events[ch.Key] = ch
		}
	}
	if len(codes) > 0 {
		var n int
		if err := c.e.queryRow(ctx, `SELECT count(*) FROM codes WHERE code IN (`+placeholders(len(codes))+`)`, keys(codes)...).Scan(&n); err != nil {
			return false, err
		}
		if n < len(codes) {
			return false, nil
		}
	}
	if len(events) == 0 {
		return true, nil
	}
	rows, err := c.e.query(ctx, `SELECT event_id, station, write_no, outcome FROM events WHERE event_id IN (`+placeholders(len(events))+`)`, keys(events)...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	held := 0
	for rows.Next() {
		var id, station string
		var outcome protocol.Outcome
		var number int64
		if err := rows.Scan(&id, &station, &number, &outcome); err != nil {
			return false, err
		}
		// The same event under the same number, decided otherwise, is
		// another history's write (protocol.WriteCheck.Outcome).
		if ch := events[id]; station == st.Name && number == ch.Number && (ch.Outcome == "" || ch.Outcome == outcome) {
			held++
		}
	}
	return held == len(events), rows.Err()
}

// placeholders returns n query placeholders: "?,?,?".
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// keys returns a map's keys as query arguments.
func keys[V any](m map[string]V) []any {
	out := make([]any, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
