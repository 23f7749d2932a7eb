package serverdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"qrdesk/internal/sqlstore"
)

// Restored is what Restore did.
type Restored struct {
	// Aside is where the database that was there before went ("" when
	// there was none, or on PostgreSQL, whose old tables pg_restore drops).
	Aside string
	// Epoch is the history epoch the restored server starts.
	Epoch    int64
	Stations int
	Codes    int
	// FeedHead is where the restored feed goes on from: at least the
	// replaced database's head, so a pull script's cursor is never passed
	// by positions given again.
	FeedHead int64
	// NoFeedReplaced: there was no database at db, or it had given no feed
	// position (a lost disk, an empty PostgreSQL database), and no
	// feedAbove was given: a pull script's cursor from the lost server may
	// lie above FeedHead, and once the feed grows past it the script skips
	// what came between. The operator gives the script's cursor as
	// feedAbove ('restore --feed-above N').
	NoFeedReplaced bool
}

// Restore puts the backup file in place of the database at db (a SQLite
// file, or a PostgreSQL address: pg_restore), brings it to this release's
// schema and starts a new history epoch, so every desk sends everything
// again at its next sync. The server must be stopped: a database a
// qrdesk-server serves is refused (ErrServing). A SQLite database
// that was there is kept beside it (Restored.Aside), never deleted. now
// names that file.
func Restore(ctx context.Context, backup, db string, now time.Time) (Restored, error) {
	return RestoreAbove(ctx, backup, db, now, 0)
}

// RestoreAbove is Restore whose feed goes on above feedAbove too: the
// highest cursor a pull script or webhook receiver may hold, when the
// database being replaced is lost and cannot say where its feed ended.
func RestoreAbove(ctx context.Context, backup, db string, now time.Time, feedAbove int64) (Restored, error) {
	var r Restored
	if _, err := os.Stat(backup); err != nil {
		if isNotExist(err) {
			return r, fmt.Errorf("there is no backup file %s", backup)
		}
		return r, fmt.Errorf("cannot read the backup %s: %w", backup, err)
	}
	release, err := holdForRestore(ctx, db)
	if err != nil {
		return r, err
	}
	defer release()
	given := givenFeedHead(ctx, db) // before the backup replaces it
	r.NoFeedReplaced = given <= 0 && feedAbove <= 0
	given = max(given, feedAbove)
	if IsPostgres(db) {
		if err := pgRestore(ctx, backup, db); err != nil {
			return r, err
		}
	} else {
		if err := checkSQLiteBackup(ctx, backup, backup); err != nil {
			return r, err
		}
		tmp := db + ".restoring"
		for _, f := range []string{tmp, tmp + "-wal", tmp + "-shm"} {
			os.Remove(f)
		}
		defer os.Remove(tmp)
		// Read-only, but not query_only: VACUUM INTO counts as a write.
		src, err := sql.Open("sqlite", "file:"+(&url.URL{Path: backup}).EscapedPath()+"?mode=ro&immutable=1")
		if err != nil {
			return r, err
		}
		_, err = src.ExecContext(ctx, `VACUUM INTO ?`, tmp)
		src.Close()
		if err != nil {
			return r, fmt.Errorf("cannot copy the backup %s beside %s: %w", backup, db, err)
		}
		if r.Aside, err = putInPlace(tmp, db, now); err != nil {
			return r, err
		}
	}
	c, err := Open(ctx, db) // this release's migrations
	if err != nil {
		return r, err
	}
	defer c.Close()
	if r.Epoch, err = c.StartEpoch(ctx); err != nil {
		return r, err
	}
	if err := c.resumeFeedAbove(ctx, given); err != nil {
		return r, err
	}
	if _, r.FeedHead, err = c.FeedBounds(ctx); err != nil {
		return r, err
	}
	// The webhook endpoints' leases in the backup are of the server
	// processes that ran when it was taken: the restored server's
	// deliverer takes them at once rather than waiting them out.
	if _, err := c.e.exec(ctx, `UPDATE webhooks SET lease_owner = '', lease_until = 0`); err != nil {
		return r, err
	}
	if err := c.e.queryRow(ctx, `SELECT (SELECT count(*) FROM stations), (SELECT count(*) FROM codes)`).Scan(&r.Stations, &r.Codes); err != nil {
		return r, err
	}
	return r, nil
}

// putInPlace moves the database at db (and its WAL) aside, named by now,
// and the restored copy tmp to db; it returns where the old one went.
func putInPlace(tmp, db string, now time.Time) (string, error) {
	if err := syncFile(tmp); err != nil {
		return "", err
	}
	aside := ""
	if _, err := os.Stat(db); err == nil {
		aside = db + ".before-restore-" + now.Format("20060102-150405")
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Rename(db+suffix, aside+suffix); err != nil && !isNotExist(err) {
				return "", fmt.Errorf("cannot move the current database %s aside: %w", db+suffix, err)
			}
		}
	}
	if err := os.Rename(tmp, db); err != nil {
		return "", fmt.Errorf("cannot put the restored database in place at %s (the one that was there is at %s): %w", db, aside, err)
	}
	return aside, nil
}

// checkSQLiteBackup checks that path holds a whole qrdesk-server database
// of a release this one can open (name is what the messages call it).
func checkSQLiteBackup(ctx context.Context, path, name string) error {
	raw, err := sql.Open("sqlite", sqlstore.ReadOnlyDSN(path))
	if err != nil {
		return err
	}
	defer raw.Close()
	var check string
	if err := raw.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&check); err != nil {
		return fmt.Errorf("%s is not a qrdesk-server backup (not a SQLite database, or damaged: %v)", name, err)
	}
	if check != "ok" {
		return fmt.Errorf("%s is damaged (%s): restore another backup", name, check)
	}
	var highest, stations int
	if err := raw.QueryRowContext(ctx, `SELECT (SELECT max(version) FROM schema_migrations), (SELECT count(*) FROM stations)`).Scan(&highest, &stations); err != nil {
		return fmt.Errorf("%s is not a qrdesk-server backup (%v)", name, err)
	}
	// As Migrate would judge it: a newer schema whose migrations this
	// release may live with (schema_floor) is restored.
	var newer *sqlstore.NewerSchemaError
	if err := sqlstore.CheckOpens(ctx, raw, migrations, centralMigrations, false); errors.As(err, &newer) {
		return fmt.Errorf("%s was made by a newer qrdesk-server (schema %d, which this release's %d may not open): restore it with that release", name, newer.Found, newer.Known)
	} else if err != nil {
		return fmt.Errorf("%s is not a qrdesk-server backup (%v)", name, err)
	}
	return nil
}

// sqlstoreVersions are the migration numbers of dir, in order.
func sqlstoreVersions(dir string) ([]int, error) { return sqlstore.Versions(migrations, dir) }

// pgRestore loads a pg_dump file into the database at url, replacing what
// it holds, in one transaction.
func pgRestore(ctx context.Context, file, url string) error {
	bin, err := exec.LookPath("pg_restore")
	if err != nil {
		return &ErrNoPGTool{Tool: "pg_restore", Recipe: "  pg_restore --clean --if-exists --no-owner --single-transaction --dbname='postgres://USER@HOST/DB' FILE\n" +
			"  then: qrdesk-server restore --epoch-only --db 'postgres://USER@HOST/DB'"}
	}
	if out, err := exec.CommandContext(ctx, bin, "--list", file).CombinedOutput(); err != nil {
		return fmt.Errorf("%s is not a pg_dump backup (pg_restore --list: %s)", file, strings.TrimSpace(string(out)))
	}
	cmd, err := pgToolCommand(ctx, bin, url, "--clean", "--if-exists", "--no-owner", "--single-transaction", file)
	if err != nil {
		return err
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_restore failed (nothing was changed: one transaction): %s: %w", strings.TrimSpace(string(out)), err)
	}
	return nil
}
