package daemonwire

import "golang.org/x/sys/unix"

// peerUIDOf reads the peer's user id of the Unix socket fd:
// LOCAL_PEERCRED, what getpeereid reads.
func peerUIDOf(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
