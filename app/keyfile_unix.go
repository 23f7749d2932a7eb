//go:build !windows

package app

import (
	"fmt"
	"io/fs"
	"os"
)

// checkKeyFileAccess refuses a key file whose mode lets group or others
// read or write it.
func checkKeyFileAccess(path string, info fs.FileInfo) error {
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("key file %s can be read by other users (mode %04o); run 'chmod 600 %s'", path, perm, path)
	}
	return nil
}

// protectKeyFile sets mode 0600.
func protectKeyFile(f *os.File) error { return f.Chmod(0o600) }

// otherReaders is the mode when group or others may read or write path.
func otherReaders(_ string, info fs.FileInfo) (string, error) {
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Sprintf("mode %04o", perm), nil
	}
	return "", nil
}
