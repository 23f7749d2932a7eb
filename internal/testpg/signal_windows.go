package testpg

import (
	"errors"
	"os"
)

// The throwaway PostgreSQL clusters run on Linux (Debian's postgresql, run
// as the postgres user); a Windows test binary never starts one and skips
// the PostgreSQL half of the store tests (see testpg.go). These let the
// package, and the store tests that import it, build for Windows.

// killProcess kills pid outright.
func killProcess(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// freezeProcess is SIGSTOP on Unix; Windows has no such signal.
func freezeProcess(int) error {
	return errors.New("freezing a process needs SIGSTOP, which Windows does not have")
}
