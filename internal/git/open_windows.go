//go:build windows

package git

import "os"

// statOwner reports nothing on Windows, so Open always asks git: git for
// Windows decides ownership (safe.directory) by security identifiers,
// which this shortcut does not read.
func statOwner(string) (dev uint64, uid int, ok bool) { return 0, 0, false }

// lstatOwner: see statOwner.
func lstatOwner(string) (os.FileInfo, int, bool) { return nil, 0, false }

func identify(path string) fileID {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{Path: path}
	}
	return fileID{Path: path, Exist: true, Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
}
