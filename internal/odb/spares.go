package odb

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// A pack written while an agent's hook waits is two new files: the pack
// and its index (its .keep is a link, see keep.go). A new file costs the
// file system an inode, and on some a lot more than the write: ext4
// without a journal skips every inode freed in the last seconds, which
// made each new file cost 0.3–0.5 ms of CPU in an agent's session here
// (more than the rest of the pack's writing). So a process that waits on
// nobody (the watch daemon between two hook events) makes empty spare
// files ahead, and a pack takes them instead of new ones: a rename, which
// allocates nothing.
//
// The spares live in gitguard's own folder beside the objects, where git
// never sees them (git counts a stray file in objects/pack as garbage). A
// spare is taken by renaming it into objects/pack under a temporary name
// of the taker's, so two takers never get the same one. The file system
// must be the same: where it is not, or no spare is left, the pack makes
// its files as before.

// spareCount is the number of spare files kept: three events' packs.
const spareCount = 6

// sparesDir is the folder of the spare files.
func (db *DB) sparesDir() string {
	return filepath.Join(filepath.Dir(db.objDir), "gitguard", "spares")
}

// MakeSpares makes the spare files that are missing (see above); a
// failure only means the next packs make their own files.
func (db *DB) MakeSpares() {
	dir := db.sparesDir()
	if err := os.MkdirAll(dir, 0o700); err != nil || !realDir(dir) {
		return
	}
	for i := range spareCount {
		f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(i)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
		}
	}
}

// realDir reports whether dir is a folder itself, not a link to one: the
// spares are made and taken only in gitguard's own folder.
func realDir(dir string) bool {
	fi, err := os.Lstat(dir)
	return err == nil && fi.IsDir()
}

// createTemp is os.CreateTemp(dir, prefix+"*") that takes a spare file
// when one is left.
func (db *DB) createTemp(dir, prefix string) (*os.File, error) {
	if f := db.takeSpare(dir, prefix); f != nil {
		return f, nil
	}
	return os.CreateTemp(dir, prefix)
}

// takeSpare renames a spare file into dir under a name of prefix and a
// random number, and opens it for writing; nil when none is left. Only an
// empty file with no other name, as MakeSpares makes them, is taken:
// anything else found there (a link to another file, a folder) is left
// where it is, never written or deleted.
func (db *DB) takeSpare(dir, prefix string) *os.File {
	spares := db.sparesDir()
	if !realDir(spares) {
		return nil
	}
	for i := range spareCount {
		spare := filepath.Join(spares, strconv.Itoa(i))
		before, err := os.Lstat(spare)
		if err != nil || !emptyFile(before) {
			continue
		}
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 10))
		if err := os.Rename(spare, name); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // another writer took it
			}
			return nil // another file system, say: every spare would fail alike
		}
		if f := openSpare(name, before); f != nil {
			// A rename keeps the file's time, and git prune removes a
			// temporary file in objects/pack that looks older than its
			// expiry (--prune=now: any second before this one): the
			// taken spare is as new as a file made now.
			now := time.Now()
			_ = os.Chtimes(name, now, now)
			return f
		}
		_ = os.Rename(name, spare) // swapped since the look: put it back
	}
	return nil
}

// emptyFile reports whether fi is of an empty regular file with one name.
func emptyFile(fi os.FileInfo) bool {
	return fi.Mode().IsRegular() && fi.Size() == 0 && singleLink(fi)
}

// openSpare opens the file name for writing if it is still the spare file
// looked at (before) and empty.
func openSpare(name string, before os.FileInfo) *os.File {
	if now, err := os.Lstat(name); err != nil || !os.SameFile(now, before) || !emptyFile(now) {
		return nil
	}
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, before) || fi.Size() != 0 {
		f.Close()
		return nil
	}
	return f
}
