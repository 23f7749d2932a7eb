package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/pprof"
)

// startCPUProfile writes the server's CPU profile to path until the
// returned stop is called (when serve ends): where a slow run's time goes
// is then read with 'go tool pprof path'. The profile holds function
// names and counts, never a request's content or the key.
//
// path must not exist: a profile never replaces a file. Given the
// database's own path (or its -wal, a backup, the TLS key) by a slip, a
// truncating create destroyed it while the server went on serving.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, usageErr(fmt.Sprintf("--cpuprofile %s: %s already exists, and a profile never replaces a file (it could be the database or a backup): give a new file name, or move the old profile away", path, path))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot write the CPU profile to %s: %w", path, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("cannot start the CPU profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
