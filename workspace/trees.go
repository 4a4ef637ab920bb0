package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// Change is one path whose state differs between two trees.
type Change struct {
	Path   string
	Before FileState
	After  FileState
}

// DiffTrees lists the leaf paths that differ between trees a and b (either
// may be zero, meaning empty), sorted by path. Identical subtrees are
// skipped by id, so the cost is proportional to what changed.
func DiffTrees(db *odb.DB, a, b git.Hash) ([]Change, error) {
	var out []Change
	err := diffTrees(db, a, b, "", &out)
	return out, err
}

func readTreeOrEmpty(db *odb.DB, h git.Hash) ([]odb.TreeEntry, error) {
	if h.IsZero() || h == odb.EmptyTree {
		return nil, nil
	}
	return db.ReadTree(h)
}

func diffTrees(db *odb.DB, a, b git.Hash, prefix string, out *[]Change) error {
	if a == b {
		return nil
	}
	ea, err := readTreeOrEmpty(db, a)
	if err != nil {
		return err
	}
	eb, err := readTreeOrEmpty(db, b)
	if err != nil {
		return err
	}
	ma := make(map[string]odb.TreeEntry, len(ea))
	for _, e := range ea {
		ma[e.Name] = e
	}
	mb := make(map[string]odb.TreeEntry, len(eb))
	for _, e := range eb {
		mb[e.Name] = e
	}
	names := make([]string, 0, len(ea)+len(eb))
	for _, e := range ea {
		names = append(names, e.Name)
	}
	for _, e := range eb {
		if _, ok := ma[e.Name]; !ok {
			names = append(names, e.Name)
		}
	}
	sort.Strings(names)
	var changes []Change
	for _, name := range names {
		x, inA := ma[name]
		y, inB := mb[name]
		if inA && inB && x.Mode == y.Mode && x.Hash == y.Hash {
			continue
		}
		p := prefix + name
		var ta, tb git.Hash
		if inA && x.Mode == odb.ModeTree {
			ta = x.Hash
		}
		if inB && y.Mode == odb.ModeTree {
			tb = y.Hash
		}
		if !ta.IsZero() || !tb.IsZero() {
			if err := diffTrees(db, ta, tb, p+"/", &changes); err != nil {
				return err
			}
		}
		c := Change{Path: p}
		if inA && x.Mode != odb.ModeTree {
			c.Before = FileState{Path: p, Mode: x.Mode, Hash: x.Hash}
		}
		if inB && y.Mode != odb.ModeTree {
			c.After = FileState{Path: p, Mode: y.Mode, Hash: y.Hash}
		}
		if c.Before.Exists() || c.After.Exists() {
			changes = append(changes, c)
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	*out = append(*out, changes...)
	return nil
}

// Lookup returns the state of path in tree (absent when not there).
func Lookup(db *odb.DB, tree git.Hash, path string) (FileState, error) {
	cur := tree
	parts := strings.Split(path, "/")
	for i, name := range parts {
		entries, err := readTreeOrEmpty(db, cur)
		if err != nil {
			return FileState{}, err
		}
		var found *odb.TreeEntry
		for j := range entries {
			if entries[j].Name == name {
				found = &entries[j]
				break
			}
		}
		if found == nil {
			return FileState{Path: path}, nil
		}
		if i == len(parts)-1 {
			if found.Mode == odb.ModeTree {
				return FileState{Path: path}, nil
			}
			return FileState{Path: path, Mode: found.Mode, Hash: found.Hash}, nil
		}
		if found.Mode != odb.ModeTree {
			return FileState{Path: path}, nil
		}
		cur = found.Hash
	}
	return FileState{Path: path}, nil
}

// ErrPathConflict is returned by Overlay when a path would need to be both
// a file and a folder.
var ErrPathConflict = errors.New("path is both a file and a folder")

// ErrBadPath is returned by Overlay for a path with an empty component
// (empty, absolute, "a//b", trailing slash), which no tree can hold.
var ErrBadPath = errors.New("bad path")

// Overlay returns base with each of states written over it (absent states
// delete the path), rewriting only the trees along those paths. A file put
// where a folder was replaces the folder, and the reverse. It returns
// ErrPathConflict when states put a file at p and something under p/, and
// ErrBadPath for malformed paths.
func Overlay(db *odb.DB, base git.Hash, states []FileState) (git.Hash, error) {
	for _, s := range states {
		for _, c := range strings.Split(s.Path, "/") {
			if c == "" {
				return git.ZeroHash, fmt.Errorf("overlay %q: %w", s.Path, ErrBadPath)
			}
		}
	}
	return overlay(db, base, "", states)
}

func overlay(db *odb.DB, tree git.Hash, prefix string, states []FileState) (git.Hash, error) {
	entries, err := readTreeOrEmpty(db, tree)
	if err != nil {
		return git.ZeroHash, err
	}
	idx := make(map[string]int, len(entries))
	for i, e := range entries {
		idx[e.Name] = i
	}
	sub := map[string][]FileState{}
	file := map[string]bool{} // names a state puts a file at
	var order []string
	for _, s := range states {
		rest := s.Path[len(prefix):]
		name, _, nested := strings.Cut(rest, "/")
		if nested {
			if _, seen := sub[name]; !seen {
				order = append(order, name)
			}
			sub[name] = append(sub[name], s)
			continue
		}
		file[name] = s.Exists()
		i, ok := idx[name]
		switch {
		case s.Exists() && ok:
			entries[i] = odb.TreeEntry{Name: name, Mode: s.Mode, Hash: s.Hash}
		case s.Exists():
			idx[name] = len(entries)
			entries = append(entries, odb.TreeEntry{Name: name, Mode: s.Mode, Hash: s.Hash})
		case ok:
			entries[i].Mode = odb.ModeNone
		}
	}
	for _, name := range order {
		if file[name] {
			for _, s := range sub[name] {
				if s.Exists() {
					return git.ZeroHash, fmt.Errorf("overlay %s%s and %s: %w", prefix, name, s.Path, ErrPathConflict)
				}
			}
		}
		var child git.Hash
		i, ok := idx[name]
		if ok && entries[i].Mode == odb.ModeTree {
			child = entries[i].Hash
		}
		h, err := overlay(db, child, prefix+name+"/", sub[name])
		if err != nil {
			return git.ZeroHash, fmt.Errorf("overlay %s%s: %w", prefix, name, err)
		}
		empty := h == odb.EmptyTree
		switch {
		case ok && empty && entries[i].Mode == odb.ModeTree:
			entries[i].Mode = odb.ModeNone
		case ok && !empty:
			entries[i] = odb.TreeEntry{Name: name, Mode: odb.ModeTree, Hash: h}
		case !ok && !empty:
			idx[name] = len(entries)
			entries = append(entries, odb.TreeEntry{Name: name, Mode: odb.ModeTree, Hash: h})
		}
	}
	kept := entries[:0]
	for _, e := range entries {
		if e.Mode != odb.ModeNone {
			kept = append(kept, e)
		}
	}
	odb.SortTree(kept)
	return db.WriteTree(kept)
}

// Capture returns the current state of one path in the work tree: absent,
// a file (blob written to the object database when store is set) or a
// symlink. A folder, or anything git does not track, is reported with
// ModeTree so that it never equals a recorded file state. Oversize files
// are hashed but not stored, and reported with oversize set.
func (w *Workspace) Capture(path string, store bool) (fs FileState, oversize bool, err error) {
	// Parents first: behind a symlinked folder even "absent" is a claim
	// about a place outside the work tree.
	if err := w.CheckParents(path); err != nil {
		return FileState{}, false, err
	}
	// A file replaced or rewritten while it is read (git checkout, an
	// editor's save) is looked at again a few times.
	for try := 0; ; try++ {
		fs, oversize, err = w.capture(path, store)
		if try == 3 || !(errors.Is(err, odb.ErrChanged) || errors.Is(err, os.ErrNotExist)) {
			break
		}
	}
	if err != nil {
		return FileState{}, false, fmt.Errorf("capture %s: %w", path, err)
	}
	return fs, oversize, nil
}

func (w *Workspace) capture(path string, store bool) (fs FileState, oversize bool, err error) {
	full := w.Abs(path)
	fi, err := os.Lstat(full)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return FileState{Path: path}, false, nil
	}
	if err != nil {
		return FileState{}, false, err
	}
	var mode odb.Mode
	plain := false // a regular file, whatever mode it is recorded with
	switch t := fi.Mode(); {
	case t.IsRegular():
		mode = odb.ModeFile
		if t&0o100 != 0 {
			mode = odb.ModeExec
		}
		mode, plain = w.captureMode(path, mode), true
	case t&os.ModeSymlink != 0:
		mode = odb.ModeSymlink
	default:
		return FileState{Path: path, Mode: odb.ModeTree}, false, nil
	}
	size := fi.Size()
	oversize = mode != odb.ModeSymlink && size > w.maxSize()
	switch {
	case store:
		fs, err = w.storeFile(path, full, size, mode, plain)
	case mode == odb.ModeSymlink && plain:
		fs = FileState{Path: path, Mode: mode, Size: size}
		fs.Hash, err = hashFile(full, size)
	case mode == odb.ModeSymlink:
		var target string
		target, err = os.Readlink(full)
		fs = FileState{Path: path, Mode: mode, Hash: odb.HashObject(odb.TypeBlob, []byte(target)), Size: int64(len(target))}
	default:
		fs = FileState{Path: path, Mode: mode, Size: size}
		var conv bool
		if conv, err = w.Converts(context.Background(), path); err == nil && conv {
			fs.Hash, err = git.HashPath(context.Background(), w.Repo.WorkTree, path, false)
		} else if err == nil {
			fs.Hash, err = hashFile(full, size)
		}
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
	for i := strings.IndexByte(path, '/'); i >= 0; {
		dir := path[:i]
		fi, err := os.Lstat(w.Abs(dir))
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("check %s: %w", path, err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s: %w (%s)", path, ErrSymlinkParent, dir)
		}
		j := strings.IndexByte(path[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return nil
}

// IndexTree writes the index as a tree (as `git write-tree` would, without
// touching the index) and returns its id. It returns ErrUnmerged when the
// index has conflict entries.
func (w *Workspace) IndexTree(ctx context.Context) (git.Hash, error) {
	idx, err := w.ReadIndex(ctx)
	if err != nil {
		return git.ZeroHash, err
	}
	if un := unmergedPaths(idx); len(un) > 0 {
		return git.ZeroHash, &UnmergedError{Paths: un}
	}
	var st Stats
	return w.writeFlatTree(indexFlat(idx), &st)
}
