package store

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"qrdesk/app"
)

// CheckBackup opens a backup, runs integrity_check and returns its settings.
func CheckBackup(ctx context.Context, path string) (app.Settings, error) {
	if _, err := os.Stat(path); err != nil {
		return app.Settings{}, app.Errorf(app.KindInvalid, "cannot read the backup %s: %v", path, err)
	}
	b, err := Open(ctx, path)
	if err != nil {
		return app.Settings{}, err
	}
	defer b.Close()
	var result string
	if err := b.db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&result); err != nil || result != "ok" {
		return app.Settings{}, app.Errorf(app.KindInvalid, "the backup %s is damaged (integrity check: %s)", path, result)
	}
	return b.LoadSettings(ctx)
}

// Restore replaces the database at dbPath with the backup. The current
// database is first saved beside it (qrdesk.db.before-restore-TIME), so a
// mistaken restore loses nothing. Close every qrdesk window on this
// database before restoring.
func Restore(ctx context.Context, backupPath, dbPath string) (saved string, err error) {
	saved = fmt.Sprintf("%s.before-restore-%s", dbPath, time.Now().Format("20060102-150405"))
	if _, err := os.Stat(dbPath); err == nil {
		cur, err := Open(ctx, dbPath)
		if err != nil {
			return "", err
		}
		err = cur.Backup(ctx, saved)
		cur.Close()
		if err != nil {
			return "", err
		}
	}
	tmp := dbPath + ".restoring"
	if err := copyFile(backupPath, tmp); err != nil {
		return "", app.ErrorfWrap(app.KindUnavailable, err, "cannot copy the backup next to %s", dbPath)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(dbPath + suffix)
	}
	if err := os.Rename(tmp, dbPath); err != nil {
		return "", app.ErrorfWrap(app.KindUnavailable, err, "cannot put the backup in place of %s", dbPath)
	}
	syncDir(filepath.Dir(dbPath))
	return saved, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// syncDir asks the file system to persist the rename; not every system
// supports it, and the rename is done either way.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
