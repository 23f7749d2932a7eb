package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile writes the server's CPU profile to path until the
// returned stop is called (when serve ends): where a slow run's time goes
// is then read with 'go tool pprof path'. The profile holds function
// names and counts, never a request's content or the key.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cannot write the CPU profile to %s: %w", path, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot start the CPU profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
