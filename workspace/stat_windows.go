//go:build windows

package workspace

import (
	"os"
	"syscall"
)

// lstatPath is the lstat of one file name, filled in as git for Windows
// does (compat/mingw.c): sizes and times from the file's attributes, the
// creation time as ctime, no inode, user or group, never an executable bit.
func lstatPath(path string, st *fileStat) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	fromFileInfo(fi, st)
	return nil
}

// statPath is the stat of one file name: symlinks are followed.
func statPath(path string, st *fileStat) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	fromFileInfo(fi, st)
	return nil
}

func fromFileInfo(fi os.FileInfo, st *fileStat) {
	*st = fileStat{size: fi.Size(), rawMode: uint32(fi.Mode())}
	if d, ok := fi.Sys().(*syscall.Win32FileAttributeData); ok {
		m, c := d.LastWriteTime.Nanoseconds(), d.CreationTime.Nanoseconds()
		st.mtimeSec, st.mtimeNsec = m/1e9, m%1e9
		st.ctimeSec, st.ctimeNsec = c/1e9, c%1e9
	} else {
		m := fi.ModTime().UnixNano()
		st.mtimeSec, st.mtimeNsec = m/1e9, m%1e9
	}
	st.kind = kindOf(fi.Mode())
}
