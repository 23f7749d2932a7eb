package app

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// keyFile is the on-disk form of a key ring (JSON, readable by its owner
// only: mode 0600 on Unix, an owner-only ACL on Windows; see
// keyfile_unix.go and keyfile_windows.go).
type keyFile struct {
	Version int          `json:"version"`
	Active  string       `json:"active"`
	Keys    []keyFileKey `json:"keys"`
}

type keyFileKey struct {
	ID      string `json:"id"`
	Secret  string `json:"secret"` // base64
	Created int64  `json:"created"`
	Retired bool   `json:"retired,omitempty"`
}

// NoKeyFileError is LoadKeys' answer when there is no key file and it was
// not asked to create one. It matches fs.ErrNotExist.
type NoKeyFileError struct{ Path string }

func (e *NoKeyFileError) Error() string {
	return fmt.Sprintf("no key file at %s: run 'qrdesk init' first (or give --key-file)", e.Path)
}

func (e *NoKeyFileError) Is(target error) bool { return target == fs.ErrNotExist }

// LoadKeys reads the key ring at path. With create set, a missing file is
// created with one new key, readable by its owner only; without, it is a
// *NoKeyFileError.
// Only set-up ('qrdesk init', the window's first run) creates: a command
// given a mistyped path must not start a second key ring. A file that other
// users can read is refused: anyone holding the key can forge labels.
func LoadKeys(path string, create bool) (Keys, error) { return LoadKeysAt(path, create, time.Now()) }

// LoadKeysAt is LoadKeys with the time a new key is created at.
func LoadKeysAt(path string, create bool, now time.Time) (Keys, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if !create {
			return Keys{}, &NoKeyFileError{Path: path}
		}
		return createKeys(path, now)
	}
	if err != nil {
		return Keys{}, fmt.Errorf("cannot read key file %s: %w", path, err)
	}
	if err := checkKeyFileAccess(path, info); err != nil {
		return Keys{}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Keys{}, fmt.Errorf("cannot read key file %s: %w", path, err)
	}
	return decodeKeys(path, data)
}

func decodeKeys(path string, data []byte) (Keys, error) {
	var kf keyFile
	if err := json.Unmarshal(data, &kf); err != nil || kf.Version != 1 || len(kf.Keys) == 0 || len(kf.Active) != 1 {
		return Keys{}, fmt.Errorf("key file %s is damaged or not a qrdesk key file; restore it from your backup", path)
	}
	ks := Keys{Active: kf.Active[0]}
	for _, k := range kf.Keys {
		secret, err := base64.StdEncoding.DecodeString(k.Secret)
		if err != nil || len(k.ID) != 1 || !inAlphabet(k.ID) || len(secret) != KeySize {
			return Keys{}, fmt.Errorf("key file %s has a damaged key %q; restore it from your backup", path, k.ID)
		}
		ks.List = append(ks.List, Key{ID: k.ID[0], Secret: secret, Created: time.Unix(k.Created, 0), Retired: k.Retired})
	}
	if _, err := ks.ActiveKey(); err != nil {
		return Keys{}, fmt.Errorf("key file %s: %w", path, err)
	}
	return ks, nil
}

func createKeys(path string, now time.Time) (Keys, error) {
	ks := Keys{}
	if err := ks.addKey(now); err != nil {
		return Keys{}, err
	}
	// Written under a temporary name and linked into place: if another
	// process created the file meanwhile, the link fails and its ring wins,
	// so two processes starting together never sign with different keys.
	tmp := fmt.Sprintf("%s.new-%d", path, os.Getpid())
	if err := SaveKeys(tmp, ks); err != nil {
		return Keys{}, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return LoadKeys(path, false)
		}
		return Keys{}, fmt.Errorf("cannot create key file %s: %w", path, err)
	}
	return ks, nil
}

func (ks *Keys) addKey(now time.Time) error {
	id, err := ks.nextKeyID()
	if err != nil {
		return err
	}
	secret := make([]byte, KeySize)
	if _, err := rand.Read(secret); err != nil {
		return fmt.Errorf("read random bytes: %w", err)
	}
	ks.List = append(ks.List, Key{ID: id, Secret: secret, Created: now})
	ks.Active = id
	return nil
}

// Rotate adds a new key and makes it active; older keys keep verifying.
func (ks *Keys) Rotate(now time.Time) error { return ks.addKey(now) }

// Retire marks key id retired: codes it signed are refused from now on.
func (ks *Keys) Retire(id byte) error {
	for i := range ks.List {
		if ks.List[i].ID == id {
			if id == ks.Active {
				return fmt.Errorf("key %c is the active key; run 'qrdesk key rotate' first", id)
			}
			ks.List[i].Retired = true
			return nil
		}
	}
	return fmt.Errorf("there is no key %c; 'qrdesk key list' shows the ids", id)
}

// SaveKeys writes the ring atomically (temporary file, fsync, rename),
// readable by its owner only (ProtectKeyFile) before the secret is written.
func SaveKeys(path string, ks Keys) error {
	kf := keyFile{Version: 1, Active: string(ks.Active)}
	for _, k := range ks.List {
		kf.Keys = append(kf.Keys, keyFileKey{ID: string(k.ID), Secret: base64.StdEncoding.EncodeToString(k.Secret), Created: k.Created.Unix(), Retired: k.Retired})
	}
	data, err := json.MarshalIndent(kf, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("cannot create the folder for key file %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".qrdesk-key-*")
	if err != nil {
		return fmt.Errorf("cannot write key file %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := protectKeyFile(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write key file %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write key file %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write key file %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write key file %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write key file %s: %w", path, err)
	}
	return nil
}

// ProtectKeyFile makes the key file at path readable and writable by its
// owner only: mode 0600 on Unix; on Windows a protected DACL (nothing
// inherited) granting the current user full control and nobody else
// anything. 'qrdesk key protect' runs it on a file LoadKeys refused.
func ProtectKeyFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("cannot open key file %s: %w", path, err)
	}
	defer f.Close()
	if err := protectKeyFile(f); err != nil {
		return fmt.Errorf("cannot protect key file %s: %w", path, err)
	}
	return nil
}

// ProtectOwnerOnly gives f, a file that is about to hold a secret (the key
// file, the sync token), the key file's protection: mode 0600 on Unix; on
// Windows a protected DACL granting the current user full control and
// nobody else anything.
func ProtectOwnerOnly(f *os.File) error { return protectKeyFile(f) }

// OtherReaders says who besides its owner may read the file at path, as
// LoadKeys judges a key file ("mode 0644" on Unix; the accounts, such as
// "Everyone", on Windows, where SYSTEM and Administrators do not count),
// or "" when nobody may.
func OtherReaders(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	return otherReaders(path, info)
}
