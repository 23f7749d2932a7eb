package app

import (
	"testing"
	"time"
)

func TestPINLockGrows(t *testing.T) {
	for failures, want := range map[int]time.Duration{0: 0, 4: 0, 5: time.Minute, 6: 2 * time.Minute, 8: 8 * time.Minute,
		9: 15 * time.Minute, 10: 15 * time.Minute, 70: 15 * time.Minute, 1 << 30: 15 * time.Minute} {
		if got := pinLock(failures); got != want {
			t.Errorf("pinLock(%d) = %v, want %v", failures, got, want)
		}
	}
}
