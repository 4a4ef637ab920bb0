package odb

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gitguard/gitguard/internal/git"
)

// TreeEntry is one entry of a tree object.
type TreeEntry struct {
	Name string
	Mode Mode
	Hash git.Hash
}

// ErrBadTree is returned when a tree object does not parse.
var ErrBadTree = errors.New("malformed tree object")

// EncodeTree serialises entries, which must already be in git's tree order
// (see SortTree), into the content of a tree object.
func EncodeTree(entries []TreeEntry) []byte {
	n := 0
	for _, e := range entries {
		n += len(e.Name) + 28
	}
	b := make([]byte, 0, n)
	for _, e := range entries {
		b = strconv.AppendUint(b, uint64(e.Mode), 8)
		b = append(b, ' ')
		b = append(b, e.Name...)
		b = append(b, 0)
		b = append(b, e.Hash[:]...)
	}
	return b
}

// SortTree puts entries in git's tree order: by name, with a subtree compared
// as if its name ended in '/'.
func SortTree(entries []TreeEntry) {
	sort.Slice(entries, func(i, j int) bool {
		return treeKey(entries[i]) < treeKey(entries[j])
	})
}

func treeKey(e TreeEntry) string {
	if e.Mode == ModeTree {
		return e.Name + "/"
	}
	return e.Name
}

// DecodeTree parses the content of a tree object.
func DecodeTree(data []byte) ([]TreeEntry, error) {
	var out []TreeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, ErrBadTree
		}
		mode, err := ParseMode(string(data[:sp]))
		if err != nil || mode == ModeNone {
			return nil, fmt.Errorf("%w: %w", ErrBadTree, err)
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+21 {
			return nil, ErrBadTree
		}
		e := TreeEntry{Name: string(data[:nul]), Mode: mode}
		copy(e.Hash[:], data[nul+1:nul+21])
		if e.Name == "" || strings.ContainsRune(e.Name, '/') {
			return nil, fmt.Errorf("%w: entry name %q", ErrBadTree, e.Name)
		}
		out = append(out, e)
		data = data[nul+21:]
	}
	return out, nil
}
