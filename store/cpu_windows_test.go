package store

import (
	"os"
	"syscall"
	"time"
)

// processCPU is the CPU time (user+system) this process has used.
func processCPU() time.Duration {
	var created, exited, kernel, user syscall.Filetime
	h, err := syscall.GetCurrentProcess()
	if err != nil || syscall.GetProcessTimes(h, &created, &exited, &kernel, &user) != nil {
		return 0
	}
	// Filetimes count 100 ns ticks; Nanoseconds reads them as a date.
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}

// peakRSS is not measured on Windows (0).
func peakRSS(*os.ProcessState) int64 { return 0 }
