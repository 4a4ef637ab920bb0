//go:build unix

package workspace

import (
	"golang.org/x/sys/unix"
)

// lstatPath is lstat(2) of one file name.
func lstatPath(path string, st *fileStat) error {
	var raw unix.Stat_t
	for {
		err := unix.Lstat(path, &raw)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	fromUnixStat(&raw, st)
	return nil
}

// fromUnixStat converts the platform's stat data.
func fromUnixStat(raw *unix.Stat_t, st *fileStat) {
	*st = fileStat{
		size:      int64(raw.Size),
		mtimeSec:  int64(raw.Mtim.Sec),
		mtimeNsec: int64(raw.Mtim.Nsec),
		ctimeSec:  int64(raw.Ctim.Sec),
		ctimeNsec: int64(raw.Ctim.Nsec),
		ino:       uint64(raw.Ino),
		dev:       uint64(raw.Dev), //nolint:unconvert // not uint64 on every platform
		uid:       raw.Uid,
		gid:       raw.Gid,
		rawMode:   uint32(raw.Mode),
		exec:      raw.Mode&0o100 != 0,
	}
	switch uint32(raw.Mode) & unix.S_IFMT {
	case unix.S_IFREG:
		st.kind = kindFile
	case unix.S_IFDIR:
		st.kind = kindDir
	case unix.S_IFLNK:
		st.kind = kindSymlink
	default:
		st.kind = kindOther
	}
}

// statPath is stat(2) of one file name: symlinks are followed.
func statPath(path string, st *fileStat) error {
	var raw unix.Stat_t
	if err := unix.Stat(path, &raw); err != nil {
		return err
	}
	fromUnixStat(&raw, st)
	return nil
}
