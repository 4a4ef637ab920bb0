package odb

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gitguard/gitguard/record"
)

// DiffTrees lists the leaf paths that differ between trees a and b (either
// may be zero, meaning empty), sorted by path. Identical subtrees are
// skipped by id, so the cost is proportional to what changed.
func (db *DB) DiffTrees(a, b record.Hash) ([]record.Change, error) {
	var out []record.Change
	err := diffTrees(db, a, b, "", &out)
	return out, err
}

// ReadTreeOrEmpty reads a tree; the zero id reads as the empty tree.
func (db *DB) ReadTreeOrEmpty(h record.Hash) ([]TreeEntry, error) {
	if h.IsZero() || h == EmptyTree {
		return nil, nil
	}
	return db.ReadTree(h)
}

// readTreeKeptOrEmpty is readTreeKept (restore.go) reading the zero id as
// the empty tree.
func (db *DB) readTreeKeptOrEmpty(h record.Hash) ([]TreeEntry, error) {
	if h.IsZero() || h == EmptyTree {
		return nil, nil
	}
	return db.readTreeKept(h)
}

func diffTrees(db *DB, a, b record.Hash, prefix string, out *[]record.Change) error {
	if a == b {
		return nil
	}
	ea, err := db.readTreeKeptOrEmpty(a)
	if err != nil {
		return err
	}
	eb, err := db.readTreeKeptOrEmpty(b)
	if err != nil {
		return err
	}
	ea, eb = inTreeOrder(ea), inTreeOrder(eb)
	var changes []record.Change
	// Both lists are in git's order: walk them side by side. A name that
	// is a folder on one side and not on the other sorts apart (as "a/"
	// and "a") and is seen as one removal and one addition.
	for i, j := 0, 0; i < len(ea) || j < len(eb); {
		order := 0
		switch {
		case i == len(ea):
			order = 1
		case j == len(eb):
			order = -1
		default:
			order = compareTreeOrder(ea[i], eb[j])
		}
		var x, y *TreeEntry
		switch {
		case order < 0:
			x = &ea[i]
			i++
		case order > 0:
			y = &eb[j]
			j++
		default:
			x, y = &ea[i], &eb[j]
			i, j = i+1, j+1
			if x.Mode == y.Mode && x.Hash == y.Hash {
				continue
			}
		}
		name := ""
		if x != nil {
			name = x.Name
		} else {
			name = y.Name
		}
		p := prefix + name
		var ta, tb record.Hash
		if x != nil && x.Mode == record.ModeTree {
			ta = x.Hash
		}
		if y != nil && y.Mode == record.ModeTree {
			tb = y.Hash
		}
		if !ta.IsZero() || !tb.IsZero() {
			if err := diffTrees(db, ta, tb, p+"/", &changes); err != nil {
				return err
			}
		}
		c := record.Change{Path: p}
		if x != nil && x.Mode != record.ModeTree {
			c.Before = record.FileState{Path: p, Mode: x.Mode, Hash: x.Hash}
		}
		if y != nil && y.Mode != record.ModeTree {
			c.After = record.FileState{Path: p, Mode: y.Mode, Hash: y.Hash}
		}
		if c.Before.Exists() || c.After.Exists() {
			changes = append(changes, c)
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	*out = append(*out, changes...)
	return nil
}

// inTreeOrder returns entries in git's tree order: as they are when they
// are (git writes no other), else a sorted copy (the entries may be
// shared).
func inTreeOrder(entries []TreeEntry) []TreeEntry {
	for i := 1; i < len(entries); i++ {
		if compareTreeOrder(entries[i-1], entries[i]) >= 0 {
			sorted := slices.Clone(entries)
			SortTree(sorted)
			return sorted
		}
	}
	return entries
}

// Lookup returns the state of path in tree (absent when not there).
func (db *DB) Lookup(tree record.Hash, path string) (record.FileState, error) {
	cur := tree
	parts := strings.Split(path, "/")
	for i, name := range parts {
		entries, err := db.ReadTreeOrEmpty(cur)
		if err != nil {
			return record.FileState{}, err
		}
		var found *TreeEntry
		for j := range entries {
			if entries[j].Name == name {
				found = &entries[j]
				break
			}
		}
		if found == nil {
			return record.FileState{Path: path}, nil
		}
		if i == len(parts)-1 {
			if found.Mode == record.ModeTree {
				return record.FileState{Path: path}, nil
			}
			return record.FileState{Path: path, Mode: found.Mode, Hash: found.Hash}, nil
		}
		if found.Mode != record.ModeTree {
			return record.FileState{Path: path}, nil
		}
		cur = found.Hash
	}
	return record.FileState{Path: path}, nil
}

// ErrPathConflict is returned by Overlay when a path would need to be both
// a file and a folder.
var ErrPathConflict = errors.New("path is both a file and a folder")

// Overlay returns base with each of states written over it (absent states
// delete the path), rewriting only the trees along those paths. A file put
// where a folder was replaces the folder, and the reverse. It returns
// ErrPathConflict when states put a file at p and something under p/, and
// record.record.ErrBadPath for malformed paths.
func (db *DB) Overlay(base record.Hash, states []record.FileState) (record.Hash, error) {
	for _, s := range states {
		for _, c := range strings.Split(s.Path, "/") {
			if c == "" {
				return record.ZeroHash, fmt.Errorf("overlay %q: %w", s.Path, record.ErrBadPath)
			}
		}
	}
	return overlay(db, base, "", states)
}

func overlay(db *DB, tree record.Hash, prefix string, states []record.FileState) (record.Hash, error) {
	entries, err := db.ReadTreeOrEmpty(tree)
	if err != nil {
		return record.ZeroHash, err
	}
	idx := make(map[string]int, len(entries))
	for i, e := range entries {
		idx[e.Name] = i
	}
	sub := map[string][]record.FileState{}
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
			entries[i] = TreeEntry{Name: name, Mode: s.Mode, Hash: s.Hash}
		case s.Exists():
			idx[name] = len(entries)
			entries = append(entries, TreeEntry{Name: name, Mode: s.Mode, Hash: s.Hash})
		case ok:
			entries[i].Mode = record.ModeNone
		}
	}
	for _, name := range order {
		if file[name] {
			for _, s := range sub[name] {
				if s.Exists() {
					return record.ZeroHash, fmt.Errorf("overlay %s%s and %s: %w", prefix, name, s.Path, ErrPathConflict)
				}
			}
		}
		var child record.Hash
		i, ok := idx[name]
		if ok && entries[i].Mode == record.ModeTree {
			child = entries[i].Hash
		}
		h, err := overlay(db, child, prefix+name+"/", sub[name])
		if err != nil {
			return record.ZeroHash, fmt.Errorf("overlay %s%s: %w", prefix, name, err)
		}
		empty := h == EmptyTree
		switch {
		case ok && empty && entries[i].Mode == record.ModeTree:
			entries[i].Mode = record.ModeNone
		case ok && !empty:
			entries[i] = TreeEntry{Name: name, Mode: record.ModeTree, Hash: h}
		case !ok && !empty:
			idx[name] = len(entries)
			entries = append(entries, TreeEntry{Name: name, Mode: record.ModeTree, Hash: h})
		}
	}
	kept := entries[:0]
	for _, e := range entries {
		if e.Mode != record.ModeNone {
			kept = append(kept, e)
		}
	}
	SortTree(kept)
	return db.WriteTree(kept)
}

// IsDir reports whether path names a folder (a subtree) in tree.
func (db *DB) IsDir(tree record.Hash, path string) (bool, error) {
	cur := tree
	for _, name := range strings.Split(path, "/") {
		entries, err := db.ReadTreeOrEmpty(cur)
		if err != nil {
			return false, err
		}
		found := false
		for _, e := range entries {
			if e.Name == name && e.Mode == record.ModeTree {
				cur, found = e.Hash, true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, nil
}
