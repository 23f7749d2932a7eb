//go:build !windows

package app

import (
	"os"
	"testing"
)

// keyFileFix is what a refusal of a readable key file tells the user to run.
const keyFileFix = "chmod 600"

func assertKeyFilePrivate(t *testing.T, path string) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %04o, want 0600", info.Mode().Perm())
	}
}

func makeKeyFileReadable(t *testing.T, path string) {
	t.Helper()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
}
