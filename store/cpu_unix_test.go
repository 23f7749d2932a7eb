//go:build !windows

package store

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user+system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
