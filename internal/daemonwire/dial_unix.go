//go:build unix

package daemonwire

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// dial connects to the Unix socket path. The file it returns is
// non-blocking, so its deadlines work.
func dial(path string) (*os.File, error) {
	// As package net does where socket(2) takes no SOCK_CLOEXEC: no
	// program started meanwhile inherits the socket.
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("watch daemon: socket: %w", err)
	}
	// Non-blocking from the start: a daemon too busy to take the
	// connection (its backlog full) is an error at once, and the caller
	// does the work itself, rather than a wait without a deadline.
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("watch daemon: %w", err)
	}
	for {
		err = unix.Connect(fd, &unix.SockaddrUnix{Name: path})
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.ECONNREFUSED) || errors.Is(err, unix.ENOENT) {
			return nil, ErrNoDaemon // a daemon died and left its socket
		}
		return nil, fmt.Errorf("watch daemon: connect %s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}
