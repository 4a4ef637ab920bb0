package workspace

import (
	"fmt"
	"strings"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore/record"
)

// treeNode is a tree computed in memory before it is written.
type treeNode struct {
	hash     record.Hash
	data     []byte
	children []*treeNode
}

// writeFlatTree builds the trees for entries (sorted by path, as in the
// index) and writes those not yet in the object database. Writing goes
// top-down with an existence check and writes children before parents, so an
// existing tree implies its subtrees exist and unchanged folders cost one
// lookup for the whole folder.
func (w *Workspace) writeFlatTree(entries []flatEntry, st *Stats) (record.Hash, error) {
	root, err := buildTree(entries, 0)
	if err != nil {
		return record.ZeroHash, err
	}
	if err := w.ensureTree(root, st); err != nil {
		return record.ZeroHash, err
	}
	return root.hash, nil
}

func (w *Workspace) ensureTree(n *treeNode, st *Stats) error {
	if w.db.HasForWrite(n.hash) { // and freshened: the snapshot names it
		w.db.Remember(n.hash, odb.TypeTree, n.data) // for a write-back after a prune
		return nil
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
		child, err := buildTree(entries[i:j], len(prefix))
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
