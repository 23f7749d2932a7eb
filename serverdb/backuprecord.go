package serverdb

import (
	"context"
	"strconv"

	"qrdesk/central"
)

// The backups' record: the backup command writes, in the deployment
// table, the time of the last backup that succeeded (backup_last_success),
// of the last that failed (backup_last_failure) and why
// (backup_last_error); every server process reads them at a scrape, so the
// metric follows a backup taken by another process or machine.

// RecordBackup writes the outcome of one backup taken at at (Unix
// seconds): failed with err's message, or a success when err is nil.
func (c *DB) RecordBackup(ctx context.Context, at int64, err error) error {
	tx, terr := c.e.begin(ctx)
	if terr != nil {
		return terr
	}
	defer tx.done()
	set := map[string]string{"backup_last_success": strconv.FormatInt(at, 10)}
	if err != nil {
		set = map[string]string{"backup_last_failure": strconv.FormatInt(at, 10), "backup_last_error": err.Error()}
	}
	for key, value := range set {
		if _, err := tx.exec(ctx, `INSERT INTO deployment (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
			return err
		}
	}
	return tx.commit()
}

// BackupRecord reads the backups' record.
func (c *DB) BackupRecord(ctx context.Context) (central.BackupRecord, error) {
	var b central.BackupRecord
	rows, err := c.e.query(ctx, `SELECT key, value FROM deployment WHERE key IN ('backup_last_success', 'backup_last_failure', 'backup_last_error')`)
	if err != nil {
		return b, err
	}
	defer rows.Close()
	for rows.Next() {
		var key, value string
		if err := rows.Scan(&key, &value); err != nil {
			return b, err
		}
		switch key {
		case "backup_last_success":
			b.LastSuccess, _ = strconv.ParseInt(value, 10, 64)
		case "backup_last_failure":
			b.LastFailure, _ = strconv.ParseInt(value, 10, 64)
		case "backup_last_error":
			b.LastError = value
		}
	}
	return b, rows.Err()
}
