package workspace

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// treeNode is a tree computed in memory before it is written.
type treeNode struct {
	hash     record.Hash
	data     []byte
	children []*treeNode

	// A folder whose tree was taken from the cache-tree (fromIndex; no
	// data, no children) keeps its entries, to be built should the tree
	// not be stored.
	fromIndex bool
	entries   []flatEntry
	cut       int
}

// errStaleCacheTree says a folder's tree built from its entries differs
// from the index's cache-tree for it.
var errStaleCacheTree = errors.New("the index's cache-tree does not match its entries")

// writeFlatTree builds the trees for entries (sorted by path, as in the
// index) and writes those not yet in the object database. Writing goes
// top-down with an existence check and writes children before parents, so an
// existing tree implies its subtrees exist and unchanged folders cost one
// lookup for the whole folder.
func (w *Workspace) writeFlatTree(entries []flatEntry, st *Stats) (record.Hash, error) {
	return w.writeFlatTreeReusing(entries, nil, st)
}

// writeFlatTreeReusing is writeFlatTree taking the tree of a folder from
// reuse when it has one (see cachetree.go) instead of building it.
func (w *Workspace) writeFlatTreeReusing(entries []flatEntry, reuse func(dir string) (record.Hash, bool), st *Stats) (record.Hash, error) {
	root, err := buildTreeReusing(entries, 0, reuse)
	if err != nil {
		return record.ZeroHash, err
	}
	st.TreesFromIndex += root.reused()
	err = w.ensureTree(root, st)
	if errors.Is(err, errStaleCacheTree) {
		w.log.Warn("building every tree", "err", err)
		root, err = buildTree(entries, 0)
		if err == nil {
			err = w.ensureTree(root, st)
		}
	}
	if err != nil {
		return record.ZeroHash, err
	}
	return root.hash, nil
}

// reused counts the nodes taken from the cache-tree under n.
func (n *treeNode) reused() int {
	if n.fromIndex {
		return 1
	}
	k := 0
	for _, c := range n.children {
		k += c.reused()
	}
	return k
}

func (w *Workspace) ensureTree(n *treeNode, st *Stats) error {
	if w.db.HasForWrite(n.hash) { // and freshened: the snapshot names it
		if !n.fromIndex {
			w.db.Remember(n.hash, odb.TypeTree, n.data) // for a write-back after a prune
		}
		return nil
	}
	if n.fromIndex {
		// A cache-tree folder whose tree is not stored: built after all.
		built, err := buildTree(n.entries, n.cut)
		if err != nil {
			return err
		}
		if built.hash != n.hash {
			return fmt.Errorf("%w: %s", errStaleCacheTree, strings.TrimSuffix(n.entries[0].path[:n.cut], "/"))
		}
		n = built
	}
	for _, c := range n.children {
		if err := w.ensureTree(c, st); err != nil {
			return err
		}
	}
	if _, err := w.db.Write(odb.TypeTree, n.data); err != nil {
		return err
	}
	st.Trees++
	return nil
}

// buildTree computes the tree of entries whose paths all share a prefix of
// length cut (a folder path plus its slash).
func buildTree(entries []flatEntry, cut int) (*treeNode, error) {
	return buildTreeReusing(entries, cut, nil)
}

// buildTreeReusing is buildTree taking a folder's tree from reuse when it
// has one: such a node is fromIndex, without data or children.
func buildTreeReusing(entries []flatEntry, cut int, reuse func(dir string) (record.Hash, bool)) (*treeNode, error) {
	if reuse != nil && len(entries) > 0 {
		dir := ""
		if cut > 0 {
			dir = entries[0].path[:cut-1]
		}
		if h, ok := reuse(dir); ok {
			return &treeNode{hash: h, fromIndex: true, entries: entries, cut: cut}, nil
		}
	}
	n := &treeNode{}
	var list []odb.TreeEntry
	for i := 0; i < len(entries); {
		rest := entries[i].path[cut:]
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			if rest == "" {
				return nil, fmt.Errorf("empty path component in %q", entries[i].path)
			}
			list = append(list, odb.TreeEntry{Name: rest, Mode: entries[i].mode, Hash: entries[i].hash})
			i++
			continue
		}
		name := rest[:slash]
		prefix := entries[i].path[:cut+slash+1]
		j := i + 1
		for j < len(entries) && strings.HasPrefix(entries[j].path, prefix) {
			j++
		}
		child, err := buildTreeReusing(entries[i:j], len(prefix), reuse)
		if err != nil {
			return nil, err
		}
		n.children = append(n.children, child)
		list = append(list, odb.TreeEntry{Name: name, Mode: record.ModeTree, Hash: child.hash})
		i = j
	}
	n.data = odb.EncodeTree(list)
	n.hash = odb.HashObject(odb.TypeTree, n.data)
	return n, nil
}
