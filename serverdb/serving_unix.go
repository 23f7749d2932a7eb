//go:build unix

package serverdb

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockServing takes the exclusive flock on path.serving, or returns
// ErrServing when a server holds it.
func lockServing(path string) (release func(), err error) {
	f, err := os.OpenFile(path+".serving", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot mark the database as served: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrServing
		}
		return nil, fmt.Errorf("cannot mark the database as served: %w", err)
	}
	return func() { f.Close() }, nil
}
