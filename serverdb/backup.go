package serverdb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"qrdesk/internal/sqlstore"
)

// Backups safe to take while the server serves. SQLite: VACUUM INTO, one
// read transaction, so the copy is the database as of one commit and the
// writers go on meanwhile (WAL). PostgreSQL: pg_dump, which reads in one
// snapshot too; without pg_dump on the PATH, the recipe (ErrNoPGTool).

// ErrNoPGTool is returned when pg_dump or pg_restore is not installed; its
// message gives the recipe to run by hand.
type ErrNoPGTool struct {
	Tool   string
	Recipe string
}

func (e *ErrNoPGTool) Error() string {
	return fmt.Sprintf("%s is not installed here (Debian: apt install postgresql-client); run it where it is:\n%s", e.Tool, e.Recipe)
}

// Backup writes a consistent copy of the database to the new file to,
// while the server serves: never over an existing file, and never a
// partial file under that name (the copy is written beside it, checked,
// then renamed).
func (c *DB) Backup(ctx context.Context, to string) error {
	if err := newFile(to); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(to), "."+filepath.Base(to)+".partial")
	os.Remove(tmp)
	defer os.Remove(tmp)
	// Readable by the server's user only, from its first byte: a backup
	// holds every unused label's code (each hands over a parcel) and the
	// staff's PIN hashes. VACUUM INTO and pg_dump write into an empty
	// file as it is.
	if err := sqlstore.CreatePrivate(tmp); err != nil {
		return backupWriteError(to, err)
	}
	if c.e.postgres {
		if err := pgDump(ctx, c.path, tmp); err != nil {
			return err
		}
	} else {
		if _, err := c.e.db.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
			return backupWriteError(to, err)
		}
		if err := checkSQLiteBackup(ctx, tmp, to); err != nil {
			return err
		}
	}
	if err := syncFile(tmp); err != nil {
		return backupWriteError(to, err)
	}
	if err := os.Rename(tmp, to); err != nil {
		return backupWriteError(to, err)
	}
	return nil
}

// backupWriteError says what stopped a backup from being written to the
// file to: its folder's disk is full, or the folder may not be written.
// The copy is written there, not into the database, so a full backup
// folder is not the database refusing writes: the server serves on.
func backupWriteError(to string, err error) error {
	dir := filepath.Dir(to)
	var se *sqlite.Error
	full := errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) ||
		(errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL) || strings.Contains(err.Error(), "No space left on device")
	denied := errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || strings.Contains(err.Error(), "Permission denied") || strings.Contains(err.Error(), "Read-only file system") ||
		(errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_CANTOPEN || se.Code()&0xff == sqlite3.SQLITE_READONLY))
	switch {
	case full:
		return fmt.Errorf("the backup folder %s is full (no space left on its disk): free space there or give another folder (QRDESK_SERVER_BACKUP_DIR); the server's database is not affected: %w", dir, err)
	case denied:
		return fmt.Errorf("cannot write in the backup folder %s: give the server's user the right to write there (the service's ReadWritePaths) or give another folder (QRDESK_SERVER_BACKUP_DIR): %w", dir, err)
	}
	return fmt.Errorf("cannot write the backup %s: %w", to, err)
}

// newFile refuses a backup over an existing file, or into a folder that
// is not there.
func newFile(to string) error {
	if to == "" {
		return errors.New("give the backup file with -o FILE")
	}
	if _, err := os.Stat(to); err == nil {
		return fmt.Errorf("%s exists already: give a new file name (a backup never overwrites a file)", to)
	}
	if st, err := os.Stat(filepath.Dir(to)); err != nil || !st.IsDir() {
		return fmt.Errorf("there is no folder %s for the backup: create it first", filepath.Dir(to))
	}
	return nil
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// pgDump runs pg_dump on the database at url into file (custom format,
// for pg_restore), in one snapshot.
func pgDump(ctx context.Context, url, file string) error {
	bin, err := exec.LookPath("pg_dump")
	if err != nil {
		return &ErrNoPGTool{Tool: "pg_dump", Recipe: "  pg_dump --format=custom --no-owner --file=FILE 'postgres://USER@HOST/DB'\n" +
			"  (it reads one snapshot: safe while the server serves)"}
	}
	cmd, err := pgToolCommand(ctx, bin, url, "--format=custom", "--no-owner", "--file="+file)
	if err != nil {
		return err
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		err = fmt.Errorf("pg_dump failed: %s: %w", strings.TrimSpace(string(out)), err)
		if strings.Contains(string(out), "could not write to output file") || strings.Contains(string(out), "could not open output file") {
			return backupWriteError(file, err)
		}
		return err
	}
	return nil
}

// isNotExist reports a missing file.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
