package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"qrdesk/app"
	"qrdesk/internal/sqlstore"
)

// CheckBackup looks into a backup and returns its settings. It never writes
// to the file (read-only, no migration, no switch to WAL), so a backup that
// is refused is left exactly as it was.
func CheckBackup(ctx context.Context, path string) (app.Settings, error) {
	const hint = "give a file that 'qrdesk backup' wrote"
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return app.Settings{}, app.Errorf(app.KindInvalid, "there is no file %s: %s", path, hint)
	case err != nil:
		return app.Settings{}, app.ErrorfWrap(app.KindInvalid, err, "cannot read the backup %s; check the file permissions", path)
	case info.IsDir():
		return app.Settings{}, app.Errorf(app.KindInvalid, "%s is a folder, not a backup: %s", path, hint)
	case info.Size() == 0:
		return app.Settings{}, app.Errorf(app.KindInvalid, "the backup %s is empty: %s", path, hint)
	}
	sqldb, err := sql.Open("sqlite", sqlstore.ReadOnlyDSN(path))
	if err != nil {
		return app.Settings{}, app.ErrorfWrap(app.KindInternal, err, "cannot open the backup %s", path)
	}
	defer sqldb.Close()
	b := &DB{db: sqldb, path: path, now: time.Now}
	damaged := func(err error) error {
		return app.ErrorfWrap(app.KindInvalid, err, "the backup %s is not a qrdesk database or is damaged: %s", path, hint)
	}
	var result string
	if err := sqldb.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&result); err != nil {
		return app.Settings{}, damaged(err)
	}
	if result != "ok" {
		return app.Settings{}, damaged(fmt.Errorf("integrity check: %s", result))
	}
	var tables int
	if err := sqldb.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('settings', 'schema_migrations')`).Scan(&tables); err != nil {
		return app.Settings{}, damaged(err)
	}
	if tables != 2 {
		return app.Settings{}, damaged(errors.New("no qrdesk tables"))
	}
	// Restored, it would not open: refused before it replaces anything.
	var newer *sqlstore.NewerSchemaError
	if err := sqlstore.CheckOpens(ctx, sqldb, migrations, deskMigrations, false); errors.As(err, &newer) {
		return app.Settings{}, app.ErrorfWrap(app.KindInvalid, err, "the backup %s was made by a newer qrdesk (schema %d; this release knows %d and may not open it): install that release to restore it, or give an older backup", path, newer.Found, newer.Known)
	} else if err != nil {
		return app.Settings{}, damaged(err)
	}
	return b.LoadSettings(ctx)
}

// DeskIdentity is the desk a database (or a backup of it) belongs to: its
// station letter and name, and the station it is at the server ("": it
// never synced). A backup names its desk so: every desk of a deployment
// shares the key ring, and only this tells one desk's backup from another's.
type DeskIdentity struct {
	Letter string `json:"letter"`
	Name   string `json:"name"`
	Server string `json:"server,omitempty"`
}

// String names the desk for a clerk: "Desk 2" (letter B, station Desk 2 at the server).
func (d DeskIdentity) String() string {
	s := fmt.Sprintf("%q (letter %s", d.Name, d.Letter)
	if d.Server != "" && d.Server != d.Name {
		s += fmt.Sprintf(", station %q at the server", d.Server)
	}
	return s + ")"
}

// Other reports whether o is another desk than d: another station at the
// server when both synced, else another letter.
func (d DeskIdentity) Other(o DeskIdentity) bool {
	if d.Server != "" && o.Server != "" {
		return d.Server != o.Server
	}
	return d.Letter != o.Letter
}

// DeskOf reads which desk the database at path belongs to. backup opens it
// read-only and immutable (a backup file, CheckBackup); otherwise it is a
// live database, read through its journal.
func DeskOf(ctx context.Context, path string, backup bool) (DeskIdentity, error) {
	source := dsn(path)
	if backup {
		source = sqlstore.ReadOnlyDSN(path)
	}
	sqldb, err := sql.Open("sqlite", source)
	if err != nil {
		return DeskIdentity{}, app.ErrorfWrap(app.KindInternal, err, "cannot open %s", path)
	}
	defer sqldb.Close()
	db := &DB{db: sqldb, path: path, now: time.Now}
	set, err := db.LoadSettings(ctx)
	if err != nil {
		return DeskIdentity{}, err
	}
	id := DeskIdentity{Letter: set.StationID, Name: set.StationName}
	var n int
	if err := sqldb.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'sync_state'`).Scan(&n); err != nil {
		return DeskIdentity{}, db.wrap(err, "cannot read %s", path)
	}
	if n > 0 {
		if err := sqldb.QueryRowContext(ctx, `SELECT COALESCE((SELECT value FROM sync_state WHERE key = 'server_station'), '')`).Scan(&id.Server); err != nil {
			return DeskIdentity{}, db.wrap(err, "cannot read %s", path)
		}
	}
	return id, nil
}

// Restore replaces the database at dbPath with the backup. The current
// database is first saved beside it (qrdesk.db.before-restore-TIME), as it
// is: not migrated, so a database a newer release left (a roll-back, which
// Open refuses) can be restored over too, and a mistaken restore loses
// nothing. The events the database held that the server has not got yet
// (its outbox) go into the restored one, and are sent at its next sync: a
// redemption made offline after the backup must reach the server, or
// another desk would hand the same label over again with no conflict.
// Close every qrdesk window on this database before restoring.
func Restore(ctx context.Context, backupPath, dbPath string) (saved string, err error) {
	saved = fmt.Sprintf("%s.before-restore-%s", dbPath, time.Now().Format("20060102-150405"))
	if _, err := os.Stat(dbPath); err == nil {
		sqldb, err := sql.Open("sqlite", dsn(dbPath))
		if err != nil {
			return "", app.ErrorfWrap(app.KindInternal, err, "cannot open database %s", dbPath)
		}
		cur := &DB{db: sqldb, path: dbPath, now: time.Now}
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
	// The restored desk knows nothing of what it did after the backup
	// until it syncs: it issues no labels before (app.Service.Issue).
	if err := markRestored(ctx, tmp, time.Now().Unix()); err != nil {
		os.Remove(tmp)
		return "", app.ErrorfWrap(app.KindUnavailable, err, "cannot prepare the backup next to %s", dbPath)
	}
	if _, err := os.Stat(saved); err == nil {
		if err := carryPendingEvents(ctx, saved, tmp); err != nil {
			os.Remove(tmp)
			return "", app.ErrorfWrap(app.KindUnavailable, err, "cannot keep the events the server has not got, from %s; nothing was restored", saved)
		}
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
