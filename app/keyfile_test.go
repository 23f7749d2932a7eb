package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "qrdesk.key")
	t.Run("CreatedPrivate", func(t *testing.T) {
		ks, err := LoadKeys(path, true)
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Fatalf("mode %04o, want 0600", info.Mode().Perm())
		}
		again, err := LoadKeys(path, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(again.List) != 1 || !bytes.Equal(again.List[0].Secret, ks.List[0].Secret) || again.Active != ks.Active {
			t.Fatal("loading again changed the key ring")
		}
	})
	t.Run("RefusedWhenReadable", func(t *testing.T) {
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadKeys(path, true)
		if err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Fatalf("LoadKeys of a 0644 file: %v, want a refusal naming chmod 600", err)
		}
		os.Chmod(path, 0o600)
	})
	t.Run("Damaged", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.key")
		os.WriteFile(bad, []byte("{not json"), 0o600)
		if _, err := LoadKeys(bad, true); err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("LoadKeys(damaged) = %v", err)
		}
	})
	t.Run("MissingWithoutCreate", func(t *testing.T) {
		if _, err := LoadKeys(filepath.Join(t.TempDir(), "none.key"), false); err == nil {
			t.Fatal("missing key file loaded")
		}
	})
}
