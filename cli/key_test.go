package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qrdesk/app"
)

// TestMissingKeyFileRefused: only 'qrdesk init' creates a key file. Any
// other command that finds none is refused and leaves no file behind, so a
// mistyped --key-file cannot start a second key ring.
func TestMissingKeyFileRefused(t *testing.T) {
	tmp := t.TempDir()
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, []byte("qrd_x"))
	for _, k := range []struct{ name, path string }{
		{"MissingFolder", filepath.Join(tmp, "nonexistent", "dir", "k.key")},
		{"MissingFile", filepath.Join(tmp, "none.key")},
	} {
		for _, args := range [][]string{
			{"issue", "--count", "1"},
			{"redeem", "WH-261129-A0001-B23X7QK9MD32-KQ7F9ZXA4"},
			{"settings", "--prefix", "WH"},
			{"stats"},
			{"sync"},
			{"sync", "--server", "http://127.0.0.1:1", "--token-file", tokenFile}, // and no sync.json saved
			{"key", "list"},
			{"key", "rotate"},
			{"restore", filepath.Join(tmp, "backup.db")},
		} {
			name := args[0]
			if len(args) > 1 && (name == "key" || name == "sync") {
				name += "_" + strings.TrimLeft(args[1], "-")
			}
			t.Run(k.name+"/"+name, func(t *testing.T) {
				s := newBareStation(t)
				code, _, errOut := s.run(t, append(args, "--key-file", k.path)...)
				if code == ExitOK {
					t.Fatalf("qrdesk %v with no key file succeeded", args)
				}
				want := "no key file at " + k.path + ": run 'qrdesk init' first (or give --key-file)"
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr %q\ndoes not say %q", errOut, want)
				}
				if strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
					t.Errorf("error is more than one line: %q", errOut)
				}
				if _, err := os.Stat(k.path); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("a key file was left at %s (%v)", k.path, err)
				}
				if _, err := os.Stat(filepath.Join(tmp, "nonexistent")); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the key file's folder was created (%v)", err)
				}
				if left, _ := os.ReadDir(s.dir); len(left) > 0 {
					t.Errorf("files were left in the station's folder: %v", left)
				}
			})
		}
	}

	// 'qrdesk init' is the one command that creates it; then the others work.
	s := newBareStation(t)
	key := filepath.Join(tmp, "none.key")
	if code, _, errOut := s.run(t, "init", "--key-file", key); code != ExitOK {
		t.Fatalf("init: %s", errOut)
	}
	if info, err := os.Stat(key); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("init did not create the key file with mode 0600: %v %v", info, err)
	}
	if code, _, errOut := s.run(t, "issue", "--count", "1", "--key-file", key); code != ExitOK {
		t.Fatalf("issue after init: %s", errOut)
	}
}

// TestOpenServiceCreatesKeyOnFirstRunOnly: the window's first run is the
// station's set-up and creates the key file; once the database exists, a
// missing key file is refused rather than replaced by a new key ring.
func TestOpenServiceCreatesKeyOnFirstRunOnly(t *testing.T) {
	dir := t.TempDir()
	db, key := filepath.Join(dir, "qrdesk.db"), filepath.Join(dir, "qrdesk.key")
	_, st, err := OpenService(context.Background(), db, key)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	st.Close()
	if info, err := os.Stat(key); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the first run did not create the key file with mode 0600: %v %v", info, err)
	}

	lost := filepath.Join(dir, "lost.key")
	_, st, err = OpenService(context.Background(), db, lost)
	if err == nil {
		st.Close()
		t.Fatal("a later run with no key file opened the window")
	}
	if want := "no key file at " + lost; !strings.Contains(app.ErrorMessage(err), want) {
		t.Errorf("error %q does not say %q", app.ErrorMessage(err), want)
	}
	if _, err := os.Stat(lost); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a later run created a key file at %s (%v)", lost, err)
	}
}
