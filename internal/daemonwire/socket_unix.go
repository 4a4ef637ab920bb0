//go:build unix

package daemonwire

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// CheckSocket makes sure path is a socket of this user before a client
// talks to it; ErrNoDaemon when there is none.
func CheckSocket(path string) error {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return ErrNoDaemon
	}
	if st.Mode&unix.S_IFMT != unix.S_IFSOCK || int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("watch daemon: %s is not a socket of this user", path)
	}
	return nil
}
