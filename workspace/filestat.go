package workspace

import (
	"errors"
	"io/fs"
	"syscall"
)

// fileKind is the type of a directory entry, as far as git cares.
type fileKind uint8

const (
	kindUnknown fileKind = iota // the folder listing did not say; lstat tells
	kindFile
	kindDir
	kindSymlink
	kindOther // sockets, fifos, devices: git does not track them
)

// fileStat is the stat data a snapshot looks at: the fields git's
// ie_match_stat compares, as the platform's lstat gives them. On Windows
// they are what git for Windows fills in (no inode, user or group; the
// creation time as ctime), so an index git wrote there matches.
type fileStat struct {
	kind      fileKind
	exec      bool // the owner's executable bit (never set on Windows)
	size      int64
	mtimeSec  int64
	mtimeNsec int64
	ctimeSec  int64
	ctimeNsec int64
	ino       uint64
	dev       uint64 // the device holding it (0 where the platform does not say)
	uid, gid  uint32
	rawMode   uint32 // the platform's mode bits, part of the stat cache key
}

// dirent is one name of a folder listing and its kind (kindUnknown when
// the file system does not say).
type dirent struct {
	name string
	kind fileKind
}

// errFolderGone is returned by openFolder when the folder is not there as
// a folder any more (removed, or replaced by a file or a symlink): its
// tracked entries are deleted.
var errFolderGone = errors.New("folder gone")

// isGone reports whether err from lstat means the name is not there: it
// was removed, or a folder on the way is now a file.
func isGone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
