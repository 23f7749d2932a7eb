package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "qrdesk.key")
	t.Run("CreatedPrivate", func(t *testing.T) {
		ks, err := LoadKeys(path, true)
		if err != nil {
			t.Fatal(err)
		}
		assertKeyFilePrivate(t, path)
		again, err := LoadKeys(path, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(again.List) != 1 || !bytes.Equal(again.List[0].Secret, ks.List[0].Secret) || again.Active != ks.Active {
			t.Fatal("loading again changed the key ring")
		}
	})
	t.Run("RefusedWhenReadable", func(t *testing.T) {
		makeKeyFileReadable(t, path)
		_, err := LoadKeys(path, true)
		if err == nil || !strings.Contains(err.Error(), keyFileFix) {
			t.Fatalf("LoadKeys of a file others can read: %v, want a refusal naming %q", err, keyFileFix)
		}
		if err := ProtectKeyFile(path); err != nil {
			t.Fatal(err)
		}
		assertKeyFilePrivate(t, path)
		if _, err := LoadKeys(path, false); err != nil {
			t.Fatalf("LoadKeys after ProtectKeyFile: %v", err)
		}
	})
	t.Run("SavedPrivate", func(t *testing.T) {
		ks, err := LoadKeys(path, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := ks.Rotate(time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := SaveKeys(path, ks); err != nil {
			t.Fatal(err)
		}
		assertKeyFilePrivate(t, path)
	})
	t.Run("PathWithSpacesAndAccents", func(t *testing.T) {
		odd := filepath.Join(t.TempDir(), "Zoë Lämmer 张", "qrdesk data", "qrdesk.key")
		if _, err := LoadKeys(odd, true); err != nil {
			t.Fatal(err)
		}
		assertKeyFilePrivate(t, odd)
		if _, err := LoadKeys(odd, false); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("Damaged", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.key")
		os.WriteFile(bad, []byte("{not json"), 0o600)
		if err := ProtectKeyFile(bad); err != nil {
			t.Fatal(err)
		}
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

// TestOwnerOnlySecretFile: the protection sync.json borrows from the key
// file. A file made with ProtectOwnerOnly has no other readers; one opened
// to others is named as such.
func TestOwnerOnlySecretFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Zoë 张", "sync.json")
	os.MkdirAll(filepath.Dir(path), 0o700)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := ProtectOwnerOnly(f); err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"token":"qrd_x"}`)
	f.Close()
	assertKeyFilePrivate(t, path)
	if others, err := OtherReaders(path); err != nil || others != "" {
		t.Fatalf("OtherReaders of an owner-only file: %q, %v", others, err)
	}
	makeKeyFileReadable(t, path)
	if others, err := OtherReaders(path); err != nil || others == "" {
		t.Fatalf("OtherReaders of a file others may read: %q, %v", others, err)
	} else {
		t.Logf("other readers: %s", others)
	}
}
