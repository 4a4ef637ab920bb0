//go:build unix && !gitguard_portable

package odb

import (
	"bytes"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps a whole file read-only. A file shorter than minSize or not
// starting with magic is errNotHere: go-git reads what this package does not.
func mapFile(path string, minSize int, magic []byte) ([]byte, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	fi, err := fd.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < int64(minSize) || fi.Size() > 1<<40 {
		return nil, errNotHere
	}
	data, err := unix.Mmap(int(fd.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(data, magic) {
		_ = unix.Munmap(data)
		return nil, errNotHere
	}
	return data, nil
}

// unmapFile releases what mapFile returned.
func unmapFile(data []byte) { _ = unix.Munmap(data) }

// releaseFile lets go of the resident pages of a mapping made by mapFile;
// it stays mapped, and a page read again is faulted in from the page cache.
func releaseFile(data []byte) { _ = unix.Madvise(data, unix.MADV_DONTNEED) }
