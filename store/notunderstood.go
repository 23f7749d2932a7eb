package store

import (
	"context"
	"database/sql"
	"strconv"
)

// countNotUnderstood adds n to the count of feed changes this desk did not
// understand and keeps what the latest was (app.NotUnderstood): the count
// stays until the desk is upgraded, so every 'qrdesk sync' says it.
func countNotUnderstood(ctx context.Context, tx *sql.Tx, n int, last string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO sync_state (key, value) VALUES ('not_understood', ?)
		ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + ? AS TEXT)`, strconv.Itoa(n), n); err != nil {
		return err
	}
	return setSyncState(ctx, tx, "not_understood_last", last)
}
