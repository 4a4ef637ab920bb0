//go:build !linux || gitguard_portable

package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
)

// walkerName names the way folders are read, for benchmarks and logs.
const walkerName = "portable (os.ReadDir, lstat)"

// folder is an open folder of the work tree, read with the os package:
// what macOS and Windows use, and Linux with the gitguard_portable build
// tag, which runs the test suite over this code against git.
type folder struct {
	f    *os.File
	path string
}

// openFolder opens the folder full. Unless follow is set, a folder that
// was replaced by a symlink is not followed (errFolderGone), nor is a
// folder gone or now a file: it is lstat'ed first, and the folder opened
// must be the one lstat saw.
func openFolder(full string, follow bool) (*folder, error) {
	var before os.FileInfo
	if !follow {
		fi, err := os.Lstat(full)
		if isGone(err) || (err == nil && !fi.IsDir()) {
			return nil, errFolderGone
		}
		if err != nil {
			return nil, err
		}
		before = fi
	}
	f, err := os.Open(full)
	if isGone(err) {
		return nil, errFolderGone
	}
	if err != nil {
		return nil, err
	}
	if before != nil {
		after, err := f.Stat()
		if err != nil || !after.IsDir() || !os.SameFile(before, after) {
			f.Close()
			return nil, errFolderGone // replaced while it was opened
		}
	}
	return &folder{f: f, path: full}, nil
}

func (f *folder) close() { f.f.Close() }

// lstat is lstat of the name in the folder.
func (f *folder) lstat(name string, st *fileStat) error {
	return lstatPath(filepath.Join(f.path, name), st)
}

// list appends the names in the folder to out, unsorted.
func (f *folder) list(out []dirent) ([]dirent, error) {
	ents, err := f.f.ReadDir(-1)
	for _, e := range ents {
		out = append(out, dirent{name: e.Name(), kind: kindOf(e.Type())})
	}
	return out, err
}

// kindOf is the kind of a file with mode m (from os.Lstat or a listing).
func kindOf(m fs.FileMode) fileKind {
	switch {
	case m.IsRegular():
		return kindFile
	case m.IsDir():
		return kindDir
	case m&fs.ModeSymlink != 0:
		return kindSymlink
	}
	return kindOther
}
