package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// Capture returns the current state of one path in the work tree: absent,
// a file (blob written to the object database when store is set) or a
// symlink. A folder, or anything git does not track, is reported with
// ModeTree so that it never equals a recorded file state. Oversize files
// are hashed but not stored, and reported with oversize set.
func (w *Workspace) Capture(path string, store bool) (fs record.FileState, oversize bool, err error) {
	// Parents first: behind a symlinked folder even "absent" is a claim
	// about a place outside the work tree.
	if err := w.CheckParents(path); err != nil {
		return record.FileState{}, false, err
	}
	// A file replaced or rewritten while it is read (git checkout, an
	// editor's save) is looked at again a few times.
	for try := 0; ; try++ {
		fs, oversize, err = w.capture(path, store)
		if try == 3 || (!errors.Is(err, odb.ErrChanged) && !errors.Is(err, os.ErrNotExist)) {
			break
		}
	}
	if err != nil {
		return record.FileState{}, false, fmt.Errorf("capture %s: %w", path, err)
	}
	return fs, oversize, nil
}

func (w *Workspace) capture(path string, store bool) (fs record.FileState, oversize bool, err error) {
	full := w.Abs(path)
	fi, err := os.Lstat(full)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return record.FileState{Path: path}, false, nil
	}
	if err != nil {
		return record.FileState{}, false, err
	}
	var mode record.Mode
	plain := false // a regular file, whatever mode it is recorded with
	switch t := fi.Mode(); {
	case t.IsRegular():
		mode = record.ModeFile
		if t&0o100 != 0 {
			mode = record.ModeExec
		}
		mode, plain = w.captureMode(path, mode), true
	case t&os.ModeSymlink != 0:
		mode = record.ModeSymlink
	default:
		return record.FileState{Path: path, Mode: record.ModeTree}, false, nil
	}
	size := fi.Size()
	oversize = mode != record.ModeSymlink && size > w.maxSize()
	rules := w.newAttrRules(nil)
	switch {
	case store:
		fs, err = w.storeFile(path, full, size, mode, plain, rules)
	case mode == record.ModeSymlink && plain:
		fs = record.FileState{Path: path, Mode: mode, Size: size}
		fs.Hash, err = hashFile(full, size)
	case mode == record.ModeSymlink:
		var target string
		target, err = os.Readlink(full)
		fs = record.FileState{Path: path, Mode: mode, Hash: odb.HashObject(odb.TypeBlob, []byte(target)), Size: int64(len(target))}
	case w.needsGit(rules, path):
		fs = record.FileState{Path: path, Mode: mode, Size: size}
		fs.Hash, err = w.hashConverted(rules, path, full, size)
	default:
		fs = record.FileState{Path: path, Mode: mode, Size: size}
		fs.Hash, err = hashFile(full, size)
	}
	return fs, oversize, err
}

// ErrSymlinkParent is returned when a folder on the way to a path is a
// symlink: writing or reading through it could leave the work tree.
var ErrSymlinkParent = errors.New("a parent folder is a symlink")

// CheckParents returns ErrSymlinkParent when a folder between the top of
// the work tree and path is a symlink. It walks down from the top: below a
// symlinked folder even a missing entry would be looked up outside the
// work tree. A missing folder is fine: nothing below it exists.
func (w *Workspace) CheckParents(path string) error {
	dir, err := w.LinkedParent(path)
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	if dir != "" {
		return fmt.Errorf("%s: %w (%s)", path, ErrSymlinkParent, dir)
	}
	return nil
}

// LinkedParent returns the first folder between the top of the work tree
// and path that is a symlink, "" when there is none (a missing folder
// ends the walk: nothing below it exists). Nothing is looked up through a
// link.
func (w *Workspace) LinkedParent(path string) (string, error) {
	for i := strings.IndexByte(path, '/'); i >= 0; {
		dir := path[:i]
		fi, err := os.Lstat(w.Abs(dir))
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return dir, nil
		}
		j := strings.IndexByte(path[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return "", nil
}

// IndexTree writes the index as a tree (as `git write-tree` would, without
// touching the index) and returns its id. A conflicted path is entered
// with its stage 2 ("ours"), or left out when it has none.
func (w *Workspace) IndexTree(ctx context.Context) (record.Hash, error) {
	idx, err := w.ReadIndex(ctx)
	if err != nil {
		return record.ZeroHash, err
	}
	var st Stats
	if _, ours, unmerged := splitUnmerged(idx); unmerged != nil {
		return w.writeFlatTree(ours, &st)
	}
	return w.writeFlatTree(indexFlat(idx), &st)
}
