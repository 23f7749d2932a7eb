package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// carryPendingEvents copies the outbox events waiting in the database
// saved before a restore (saved) into the restored copy (restored): what
// this desk did that the server has not got yet, redemptions made offline
// above all. Only columns both databases have are copied (either may be
// of another release); an event the restored copy holds already (by its
// id) is left as it is there. The restored copy's labels stay as the
// backup has them until the sync: the server decides the events and the
// feed brings the result back.
func carryPendingEvents(ctx context.Context, saved, restored string) error {
	db, err := sql.Open("sqlite", dsn(restored))
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS saved`, "file:"+saved+"?mode=ro"); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE saved`)
	cols, err := commonColumns(ctx, conn, "outbox")
	if err != nil || len(cols) == 0 {
		return err // no outbox in one of them: a desk that never synced
	}
	list := strings.Join(cols, ", ")
	_, err = conn.ExecContext(ctx, fmt.Sprintf(`INSERT INTO main.outbox (%s) SELECT %s FROM saved.outbox
		WHERE state = 'pending' AND event_id NOT IN (SELECT event_id FROM main.outbox) ORDER BY id`, list, list))
	return err
}

// commonColumns are the columns of table in both main and saved, but id
// (the restored copy numbers its rows).
func commonColumns(ctx context.Context, conn *sql.Conn, table string) ([]string, error) {
	names := func(schema string) ([]string, error) {
		rows, err := conn.QueryContext(ctx, fmt.Sprintf(`SELECT name FROM pragma_table_info('%s', '%s')`, table, schema))
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				return nil, err
			}
			if n != "id" {
				out = append(out, n)
			}
		}
		return out, rows.Err()
	}
	main, err := names("main")
	if err != nil {
		return nil, err
	}
	other, err := names("saved")
	if err != nil {
		return nil, err
	}
	var both []string
	for _, n := range main {
		if slices.Contains(other, n) {
			both = append(both, `"`+n+`"`)
		}
	}
	if !slices.Contains(both, `"event_id"`) || !slices.Contains(both, `"state"`) {
		return nil, nil
	}
	return both, nil
}
