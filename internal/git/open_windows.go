//go:build windows

package git

import "os"

// statOwner reports nothing on Windows, so Open always asks git: git for
// Windows decides ownership (safe.directory) by security identifiers,
// which this shortcut does not read.
func statOwner(string) (dev uint64, uid int, ok bool) { return 0, 0, false }

// lstatOwner: see statOwner.
func lstatOwner(string) (os.FileInfo, int, bool) { return nil, 0, false }

// Identify returns the identity of the file at path (following links);
// Exist is false when there is none.
func Identify(path string) FileID {
	fi, err := os.Stat(path)
	if err != nil {
		return FileID{Path: path}
	}
	return FileID{Path: path, Exist: true, Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
}
