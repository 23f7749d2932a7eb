package store

import (
	"database/sql"

	"qrdesk/app"
)

// scanConflicts reads rows of the desk's conflicts table selected in the
// order of app.Conflict's fields (the server's database has its own, in
// serverdb).
func scanConflicts(rows *sql.Rows) ([]app.Conflict, error) {
	defer rows.Close()
	out := []app.Conflict{}
	for rows.Next() {
		var k app.Conflict
		if err := rows.Scan(&k.Code, &k.FirstEvent, &k.FirstStation, &k.FirstOperator, &k.FirstAt, &k.SecondEvent, &k.SecondStation, &k.SecondOperator, &k.SecondAt, &k.Flag, &k.SecondCode); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}
