package store

import (
	"fmt"
	"os"
	"sync"
)

// LogFile is an append-only log file rotated by size: when it passes
// MaxBytes it is renamed to NAME.1 (replacing the previous one) and a new
// file starts. Appends are whole lines with O_APPEND, so several qrdesk
// processes can share it.
type LogFile struct {
	Path     string
	MaxBytes int64
	mu       sync.Mutex
}

// NewLogFile returns a rotating log of at most maxBytes per file.
func NewLogFile(path string, maxBytes int64) *LogFile {
	return &LogFile{Path: path, MaxBytes: maxBytes}
}

// Write appends p (one log line) to the file.
func (l *LogFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if info, err := os.Stat(l.Path); err == nil && info.Size()+int64(len(p)) > l.MaxBytes {
		_ = os.Rename(l.Path, l.Path+".1") // another process may have rotated it first
	}
	f, err := os.OpenFile(l.Path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, fmt.Errorf("open log %s: %w", l.Path, err)
	}
	defer f.Close()
	return f.Write(p)
}
