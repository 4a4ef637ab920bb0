package patchstore

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// Since format version 2 the calls of a run, and the run index, are fanned
// out as git notes fans out notes: under two levels of folders named by the
// first two hex digits of the SHA-1 of the call id (or, in the index, of the
// path). A checkpoint then rewrites the three small trees above each call it
// changes, never a tree listing every call: 16 entries at each of the upper
// levels and about calls/256 at the bottom. Version 1 runs list their calls
// in one flat calls/ tree; readers handle both, and the first checkpoint a
// version 2 writer records on a version 1 run converts it.

// fanKey returns the two folder names key is filed under.
func fanKey(key string) (string, string) {
	sum := sha1.Sum([]byte(key))
	h := hex.EncodeToString(sum[:1])
	return h[:1], h[1:2]
}

// fanPath is the path of key's entry below a fanned-out tree.
func fanPath(key string) string {
	a, b := fanKey(key)
	return a + "/" + b + "/" + key
}

// fanned reports whether a checkpoint record of this version fans its calls
// out (format version 2 and later).
func fanned(cp *record.Checkpoint) bool { return cp.Version >= 2 }

// fanLeaves calls visit for every entry at the bottom of a fanned-out tree,
// checking that each level has the shape fanKey gives.
func (s *Store) fanLeaves(tree record.Hash, what string, visit func(a, b string, e odb.TreeEntry) error) error {
	top, err := s.db.ReadTree(tree)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", record.ErrCorrupt, what, err)
	}
	for _, t := range top {
		if t.Mode != record.ModeTree || !isNibble(t.Name) {
			return fmt.Errorf("%w: %s/%s is not a fan-out folder", record.ErrCorrupt, what, t.Name)
		}
		mid, err := s.db.ReadTree(t.Hash)
		if err != nil {
			return fmt.Errorf("%w: %s/%s: %w", record.ErrCorrupt, what, t.Name, err)
		}
		for _, m := range mid {
			if m.Mode != record.ModeTree || !isNibble(m.Name) {
				return fmt.Errorf("%w: %s/%s/%s is not a fan-out folder", record.ErrCorrupt, what, t.Name, m.Name)
			}
			leaves, err := s.db.ReadTree(m.Hash)
			if err != nil {
				return fmt.Errorf("%w: %s/%s/%s: %w", record.ErrCorrupt, what, t.Name, m.Name, err)
			}
			for _, e := range leaves {
				if err := visit(t.Name, m.Name, e); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// fanLookup finds key's entry below a fanned-out tree; ok is false when it
// is not there.
func (s *Store) fanLookup(tree record.Hash, key, what string) (odb.TreeEntry, bool, error) {
	if tree.IsZero() {
		return odb.TreeEntry{}, false, nil
	}
	a, b := fanKey(key)
	cur := tree
	for _, name := range []string{a, b, key} {
		entries, err := s.db.ReadTree(cur)
		if err != nil {
			return odb.TreeEntry{}, false, fmt.Errorf("%w: %s: %w", record.ErrCorrupt, what, err)
		}
		i := findEntry(entries, name)
		if i < 0 {
			return odb.TreeEntry{}, false, nil
		}
		if name == key {
			return entries[i], true, nil
		}
		if entries[i].Mode != record.ModeTree {
			return odb.TreeEntry{}, false, fmt.Errorf("%w: %s/%s is not a fan-out folder", record.ErrCorrupt, what, name)
		}
		cur = entries[i].Hash
	}
	return odb.TreeEntry{}, false, nil
}

func findEntry(entries []odb.TreeEntry, name string) int {
	for i := range entries {
		if entries[i].Name == name {
			return i
		}
	}
	return -1
}

func isNibble(s string) bool {
	return len(s) == 1 && (s[0] >= '0' && s[0] <= '9' || s[0] >= 'a' && s[0] <= 'f')
}
