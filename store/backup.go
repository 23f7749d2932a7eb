package store

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"qrdesk/app"
	"qrdesk/internal/sqlstore"
)

// Backup writes a consistent copy of the live database to path with
// VACUUM INTO: a single read transaction, so scans may go on meanwhile.
func (d *DB) Backup(ctx context.Context, path string) error {
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return app.Errorf(app.KindInvalid, "%s already exists: choose a new file name for the backup", path)
	}
	// Readable by this user only, from its first byte: a backup holds
	// every unused label's code (each hands over a parcel) and the PIN
	// hashes. VACUUM INTO writes into an empty file as it is.
	if err := sqlstore.CreatePrivate(path); err != nil {
		return app.ErrorfWrap(app.KindInvalid, err, "cannot write the backup %s: %v", path, err)
	}
	if _, err := d.db.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		os.Remove(path)
		return d.wrap(err, "cannot write the backup %s", path)
	}
	return nil
}
