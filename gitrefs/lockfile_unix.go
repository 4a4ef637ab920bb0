//go:build unix

package gitrefs

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lockFile takes an flock(2) lock on the file at path, creating it (and
// its folder) if needed: shared, waiting for an exclusive holder, or
// exclusive, without waiting. ok is false when it is not taken.
func lockFile(path string, exclusive bool) (release func(), ok bool) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if errors.Is(err, os.ErrNotExist) {
		if os.MkdirAll(filepath.Dir(path), 0o777) == nil {
			f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
		}
	}
	if err != nil {
		return nil, false
	}
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX | unix.LOCK_NB
	}
	for {
		err = unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
