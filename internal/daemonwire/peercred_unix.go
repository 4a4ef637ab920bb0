//go:build linux || darwin

package daemonwire

import "syscall"

// PeerUID is the user id of the process at the other end of conn, a Unix
// socket (a *net.UnixConn, or an *os.File holding one).
func PeerUID(conn syscall.Conn) (int, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid, credErr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, credErr = peerUIDOf(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, credErr
}
