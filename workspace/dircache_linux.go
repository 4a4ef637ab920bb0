//go:build linux && !gitguard_portable

package workspace

import (
	"errors"

	"golang.org/x/sys/unix"
)

// dirTimesKept reports whether the file system holding the work tree root
// moves a folder's modification and change times whenever a name in it is
// created, deleted or renamed, and so whether a folder's listing may be
// taken from the folder cache (see dircache.go); and the root's device,
// since a folder mounted from another file system makes no such promise.
// Local disk file systems do; network and FUSE ones may serve times from
// a cache, or none that moves, and are listed every time.
func dirTimesKept(root string) (bool, uint64) {
	var fs unix.Statfs_t
	err := unix.Statfs(root, &fs)
	for errors.Is(err, unix.EINTR) {
		err = unix.Statfs(root, &fs)
	}
	if err != nil {
		return false, 0
	}
	switch uint64(fs.Type) { //nolint:unconvert // int64 or uint32 by architecture
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.F2FS_SUPER_MAGIC:
	default:
		return false, 0
	}
	var st unix.Stat_t
	if err := unix.Stat(root, &st); err != nil {
		return false, 0
	}
	return true, uint64(st.Dev) //nolint:unconvert // not uint64 on every platform
}
