//go:build unix

package serverdb

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockServing takes the flock on path.serving: shared for a server, which
// fails only while a restore holds it (errRestoring); exclusive for a
// restore, which fails while any server holds it (ErrServing).
func lockServing(path string, server bool) (release func(), err error) {
	f, err := os.OpenFile(path+".serving", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot mark the database as served: %w", err)
	}
	how, busy := syscall.LOCK_EX, ErrServing
	if server {
		how, busy = syscall.LOCK_SH, errRestoring
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, busy
		}
		return nil, fmt.Errorf("cannot mark the database as served: %w", err)
	}
	return func() { f.Close() }, nil
}
