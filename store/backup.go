package store

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"qrdesk/app"
)

// Backup writes a consistent copy of the live database to path with
// VACUUM INTO: a single read transaction, so scans may go on meanwhile.
func (d *DB) Backup(ctx context.Context, path string) error {
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return app.Errorf(app.KindInvalid, "%s already exists: choose a new file name for the backup", path)
	}
	if _, err := d.db.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		return d.wrap(err, "cannot write the backup %s", path)
	}
	return nil
}
