package odb

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/record"
)

// TreeEntry is one entry of a tree object.
type TreeEntry struct {
	Name string
	Mode Mode
	Hash git.Hash
}

// ErrBadTree is returned when a tree object does not parse, or holds an
// entry git refuses (see DecodeTree). It is returned wrapped together with
// record.ErrCorrupt: such a tree is corrupt or hostile data.
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

// compareTreeOrder compares two entries in git's tree order (treeKey's),
// without building the keys.
func compareTreeOrder(x, y TreeEntry) int {
	n := min(len(x.Name), len(y.Name))
	if c := strings.Compare(x.Name[:n], y.Name[:n]); c != 0 {
		return c
	}
	return cmp.Compare(treeKeyByte(x, n), treeKeyByte(y, n))
}

// treeKeyByte is the byte at i of e's treeKey, -1 past its end. Names hold
// no '/', so two keys equal up to the shorter name's length differ at
// that length or are equal.
func treeKeyByte(e TreeEntry, i int) int {
	switch {
	case i < len(e.Name):
		return int(e.Name[i])
	case i == len(e.Name) && e.Mode == ModeTree:
		return '/'
	}
	return -1
}

func treeKey(e TreeEntry) string {
	if e.Mode == ModeTree {
		return e.Name + "/"
	}
	return e.Name
}

// DecodeTree parses the content of a tree object and validates it as git's
// fsck does for the entries that matter when a tree is written out: modes
// are git's five, and names are not empty, ".", "..", ".git" in any case or
// another spelling a file system folds to it (git~1, ".git.", HFS+'s
// ignorable code points), hold no '/', and appear once.
//
// Every tree gitguard reads goes through here, so each command validates
// exactly the trees it reads, at a cost linear in what it reads anyway: a
// tree's entries become paths only by being walked, and walking reads
// (and so validates) each tree on the way. A hostile entry deep in a
// snapshot that no command walks is never turned into a path.
func DecodeTree(data []byte) ([]TreeEntry, error) {
	if len(data) == 0 {
		return nil, nil
	}
	// An entry takes some 30 to 50 bytes: one allocation, not a few.
	out := make([]TreeEntry, 0, len(data)/32)
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %w: %s", record.ErrCorrupt, ErrBadTree, fmt.Sprintf(format, args...))
	}
	var seen map[string]bool
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, bad("no mode")
		}
		mode, err := ParseMode(string(data[:sp]))
		if err != nil || mode == ModeNone {
			return nil, bad("entry mode %q", data[:sp])
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+21 {
			return nil, bad("truncated entry")
		}
		e := TreeEntry{Name: string(data[:nul]), Mode: mode}
		copy(e.Hash[:], data[nul+1:nul+21])
		if err := record.ValidateTreeName(e.Name); err != nil {
			return nil, bad("%v", err)
		}
		// git writes each name once: a duplicate could make one path both
		// a symlink and a folder.
		if duplicate(out, e, &seen) {
			return nil, bad("entry %s appears twice", record.Quoted(e.Name))
		}
		out = append(out, e)
		data = data[nul+21:]
	}
	return out, nil
}

// duplicate reports whether e's name is already among out. In git's order
// (SortTree), the one way a name can repeat without being adjacent is a
// file "a" and a folder "a" (sorted as "a/"), with names like "a-b" and
// "a.txt" between them: a folder's name is looked for back through the
// entries it prefixes. Once out of order (which git never writes), every
// name goes into seen.
func duplicate(out []TreeEntry, e TreeEntry, seen *map[string]bool) bool {
	if *seen == nil && len(out) > 0 && treeKey(out[len(out)-1]) >= treeKey(e) {
		m := make(map[string]bool, 2*len(out))
		for _, o := range out {
			m[o.Name] = true
		}
		*seen = m
	}
	if *seen != nil {
		if (*seen)[e.Name] {
			return true
		}
		(*seen)[e.Name] = true
		return false
	}
	if e.Mode != ModeTree {
		return false
	}
	for i := len(out) - 1; i >= 0 && strings.HasPrefix(out[i].Name, e.Name); i-- {
		if out[i].Name == e.Name {
			return true
		}
	}
	return false
}
