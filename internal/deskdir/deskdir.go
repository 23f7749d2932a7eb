// Package deskdir is where a desk keeps its files (the database and its
// WAL, the key file, sync.json, qrdesk.log, templates) when no folder is
// named (QRDESK_HOME, --db, --key-file).
//
// A desk is the machine, not the login. On Windows the folder is
// %ProgramData%\qrdesk: on the PC's own disk (never a roaming profile or a
// redirected network folder, where SQLite's WAL does not work), one for the
// whole PC, so a second Windows login does not become a second desk with a
// key ring of its own. The folder is made with a protected DACL: the user
// who set the desk up, SYSTEM and Administrators, nobody else. A desk from
// an older version, in %APPDATA%\qrdesk, is moved there once (Migrate).
//
// On Linux it is $XDG_DATA_HOME/qrdesk or ~/.local/share/qrdesk, on macOS
// the user's config folder, as before.
package deskdir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// rename is os.Rename (a test makes it fail, as across volumes).
var rename = os.Rename

// Name is the folder's name under its parent.
const Name = "qrdesk"

// Default is the desk's folder: QRDESK_HOME when set, else the system's
// place for it (see the package comment).
func Default(getenv func(string) string) string {
	if d := getenv("QRDESK_HOME"); d != "" {
		return d
	}
	switch runtime.GOOS {
	case "linux", "freebsd":
		if d := getenv("XDG_DATA_HOME"); d != "" {
			return filepath.Join(d, Name)
		}
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, ".local", "share", Name)
		}
	case "windows":
		if d := machineDir(getenv); d != "" {
			return filepath.Join(d, Name)
		}
	}
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, Name)
	}
	return "qrdesk-data"
}

// Roaming is where a Windows desk of an older version kept its files
// (%APPDATA%\qrdesk), "" elsewhere or when QRDESK_HOME names the folder.
func Roaming(getenv func(string) string) string {
	if runtime.GOOS != "windows" || getenv("QRDESK_HOME") != "" {
		return ""
	}
	if d := getenv("APPDATA"); d != "" {
		return filepath.Join(d, Name)
	}
	return ""
}

// files are a desk's files that decide whether a folder holds a desk.
var deskFiles = []string{"qrdesk.db", "qrdesk.key"}

// holdsDesk says whether dir has a desk's database or key file.
func holdsDesk(dir string) bool {
	for _, f := range deskFiles {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// Migrate moves the desk in from, everything in the folder (the database
// with its -wal and -shm files, the key file, sync.json, the log, the
// templates), to to, once: only when from holds a desk and to holds none.
// It answers whether it moved one. The move is one rename of the folder
// when both are on one volume; otherwise the files are copied into a
// temporary folder beside to, which is renamed into place, and from is
// removed. Either way a desk is whole in one place or the other, never
// split: a failure leaves from as it was (and no to).
//
// No qrdesk may have the old database open meanwhile: on Windows the
// rename of a folder with an open file fails, and nothing is moved.
func Migrate(from, to string) (bool, error) {
	if from == "" || !holdsDesk(from) || holdsDesk(to) {
		return false, nil
	}
	// A to without a desk (made by hand, or holding only the log of a
	// window that could not start before there was a desk to move) is
	// taken away first; one with anything else in it is left alone.
	if err := removeDeskless(to); err != nil {
		return false, fmt.Errorf("the folder %s is in the way of the desk in %s: %w", to, from, err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return false, err
	}
	if err := rename(from, to); err == nil {
		return true, Protect(to)
	}
	tmp := to + ".moving"
	if err := os.RemoveAll(tmp); err != nil {
		return false, err
	}
	if err := prepare(tmp); err != nil {
		return false, err
	}
	if err := copyTree(from, tmp); err != nil {
		os.RemoveAll(tmp)
		return false, fmt.Errorf("copy the desk from %s to %s: %w", from, to, err)
	}
	if err := os.Rename(tmp, to); err != nil {
		os.RemoveAll(tmp)
		return false, fmt.Errorf("move the desk from %s to %s: %w", from, to, err)
	}
	// The desk now lives in to; what is left in from is a stale copy.
	if err := os.RemoveAll(from); err != nil {
		return true, fmt.Errorf("the desk was moved to %s, but the old copy in %s could not be removed (remove it by hand): %w", to, from, err)
	}
	return true, nil
}

// removeDeskless removes dir if it holds nothing but qrdesk.log files.
func removeDeskless(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if n := e.Name(); n != "qrdesk.log" && n != "qrdesk.log.1" {
			return fmt.Errorf("it holds %s", n)
		}
	}
	for _, e := range entries {
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(dir)
}

// Prepare makes dir, if it is missing, readable by the current user only
// (with SYSTEM and Administrators on Windows; mode 0700 on Unix).
func Prepare(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	return prepare(dir)
}

// prepare makes dir (its parent exists) owner-only.
func prepare(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return Protect(dir)
}

// copyTree copies the files and folders in from into to (which exists),
// each file synced before the next.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil || rel == "." {
			return err
		}
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.Mkdir(dst, 0o700)
		}
		return copyFile(path, dst)
	})
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
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
