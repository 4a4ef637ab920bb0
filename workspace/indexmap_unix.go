//go:build unix && !gitguard_portable

package workspace

import (
	"os"

	"golang.org/x/sys/unix"
)

// indexData returns the content of the open index file f of size bytes
// and the function that releases it: a mapping from mapIndexMin bytes.
func indexData(f *os.File, size int64) ([]byte, func(), error) {
	if size < mapIndexMin || size > 1<<40 {
		return readIndexData(f, size)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return readIndexData(f, size)
	}
	return data, func() { _ = unix.Munmap(data) }, nil
}
