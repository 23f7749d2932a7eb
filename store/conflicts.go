package store

import (
	"database/sql"

	"qrdesk/protocol"
)

// scanConflicts reads rows of the desk's conflicts table selected in the
// order of protocol.Conflict's fields (the server's database has its own, in
// serverdb).
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
