//go:build unix

package odb

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// readWhole reads the file at path whole when it holds at most limit bytes
// (data nil and its size otherwise), with plain system calls: os.Open
// registers a file with the runtime's poller (five system calls more, all
// for nothing on a regular file), and a command reads every pack index.
func readWhole(path string, limit int64) (data []byte, size int64, err error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	for errors.Is(err, unix.EINTR) {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, 0, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Size > limit {
		return nil, st.Size, nil
	}
	data = make([]byte, st.Size)
	for off := 0; off < len(data); {
		n, err := unix.Pread(fd, data[off:], int64(off))
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return nil, 0, &os.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return nil, 0, &os.PathError{Op: "read", Path: path, Err: io.ErrUnexpectedEOF}
		}
		off += n
	}
	return data, st.Size, nil
}
