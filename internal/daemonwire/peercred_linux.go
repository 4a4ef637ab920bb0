package daemonwire

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// PeerUID is the user id of the process at the other end of conn, a Unix
// socket (a *net.UnixConn, or an *os.File holding one).
func PeerUID(conn syscall.Conn) (int, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if credErr != nil {
		return -1, credErr
	}
	return int(cred.Uid), nil
}
