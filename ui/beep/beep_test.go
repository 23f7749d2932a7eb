package beep

import (
	"bytes"
	"log/slog"
	"testing"
	"time"
)

// TestPlayWithoutSoundDevice: on a machine without a sound card (these
// test machines; wine without an audio driver) Play returns at once, the
// failure is logged once at most, and scanning carries on.
func TestPlayWithoutSoundDevice(t *testing.T) {
	var logged bytes.Buffer
	p := New(slog.New(slog.NewTextHandler(&logged, nil)))
	done := make(chan struct{})
	go func() {
		for i := 0; i < 3; i++ {
			p.Play(i%2 == 0)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Play did not return within 20 s: a missing sound device blocks scanning")
	}
	if n := bytes.Count(logged.Bytes(), []byte("no sound device")); n > 1 {
		t.Errorf("logged %d times, want at most once:\n%s", n, logged.String())
	}
	t.Logf("sound: %s", bytes.TrimSpace(logged.Bytes()))
}
