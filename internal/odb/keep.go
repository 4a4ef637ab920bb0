package odb

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// A pack a batch writes is guarded by a .keep file until the ref naming
// its objects moved (see writePackFile). git only asks whether a .keep
// exists, so every .keep gitguard writes is a hard link to one file of
// its own, made once per process: a link allocates no inode, where a new
// file costs one (see spares.go for what that costs on some file
// systems). Where no link can be made (another file system, a folder
// without hard links), the .keep is written as a file of its own.

// keepBase is the file every .keep this process writes is a link to.
type keepBase struct {
	mu sync.Mutex
	fi os.FileInfo // the file made, to tell it from whatever else is put in its place
}

// made reports whether fi is the file this process made: the same inode,
// still a regular file of the same size and time (an inode number is
// reused once its file is deleted).
func (b *keepBase) made(fi os.FileInfo) bool {
	return b.fi != nil && fi.Mode().IsRegular() && os.SameFile(fi, b.fi) &&
		fi.Size() == b.fi.Size() && fi.ModTime().Equal(b.fi.ModTime())
}

// keepFile is the name of the file .keep files are links to.
func (db *DB) keepFile() string {
	return filepath.Join(filepath.Dir(db.objDir), "gitguard", "keep")
}

// writeKeep installs the .keep file keep.
func (db *DB) writeKeep(keep string) error {
	if db.linkKeep(keep) {
		return nil
	}
	return os.WriteFile(keep, []byte(keepNote), 0o444)
}

// linkKeep makes keep a link to the keep file, making that file first
// when this process has not, or when what is in its place is not the file
// it made (an agent may put a link to a user's file there: a .keep is
// never a name of anything else). It reports whether keep was made.
func (db *DB) linkKeep(keep string) bool {
	b := &db.keepBase
	b.mu.Lock()
	defer b.mu.Unlock()
	base := db.keepFile()
	if fi, err := os.Lstat(base); err != nil || !b.made(fi) {
		if b.fi, err = makeKeepFile(base); err != nil {
			return false
		}
	}
	return os.Link(base, keep) == nil
}

// makeKeepFile writes the keep file anew, read-only, and returns it as
// made.
func makeKeepFile(base string) (os.FileInfo, error) {
	dir := filepath.Dir(base)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if !realDir(dir) {
		return nil, errors.New("not a folder of its own")
	}
	f, err := os.CreateTemp(dir, "keep-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(keepNote)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o444)
	}
	if err != nil {
		return nil, err
	}
	made, err := os.Lstat(f.Name())
	if err != nil {
		return nil, err
	}
	if err := os.Rename(f.Name(), base); err != nil {
		return nil, err
	}
	return made, nil
}
