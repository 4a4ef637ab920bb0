//go:build unix

package git

import (
	"os"

	"golang.org/x/sys/unix"
)

// statOwner returns the device and owner of path, symlinks followed.
func statOwner(path string) (dev uint64, uid int, ok bool) {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return 0, 0, false
	}
	return uint64(st.Dev), int(st.Uid), true
}

// lstatOwner returns what lstat says of path, and its owner.
func lstatOwner(path string) (os.FileInfo, int, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, 0, false
	}
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return nil, 0, false
	}
	return fi, int(st.Uid), true
}

// Identify returns the identity of the file at path (following links);
// Exist is false when there is none.
func Identify(path string) FileID {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return FileID{Path: path}
	}
	return FileID{Path: path, Exist: true, Size: int64(st.Size), Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: uint64(st.Ino)}
}
