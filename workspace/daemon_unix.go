//go:build unix

package workspace

import (
	"errors"
	"fmt"
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

// checkSocket makes sure path is a socket of this user before a client
// talks to it; ErrNoDaemon when there is none.
func checkSocket(path string) error {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return ErrNoDaemon
	}
	if st.Mode&unix.S_IFMT != unix.S_IFSOCK || int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("watch daemon: %s is not a socket of this user", path)
	}
	return nil
}
