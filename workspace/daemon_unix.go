//go:build unix

package workspace

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockOnce takes an exclusive lock on f without waiting; it returns
// ErrDaemonRunning when another process holds it.
func lockOnce(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return ErrDaemonRunning
	}
	return err
}
