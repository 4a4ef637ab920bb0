//go:build linux && !gitguard_portable

package odb

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// syncFS makes everything written to the file system holding dir durable
// with one syncfs(2); files are the object files written since the last
// sync, which it need not name.
func syncFS(dir string, _ []string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}

// fsyncPath fsyncs a file or a folder by name.
func fsyncPath(name string) error {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	for {
		err = unix.Fsync(fd)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
