package workspace

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// treeNode is a tree computed in memory before it is written.
type treeNode struct {
	hash     git.Hash
	data     []byte
	children []*treeNode
}

// writeFlatTree builds the trees for entries (sorted by path, as in the
// index) and writes those not yet in the object database. An existing tree
// implies its subtrees exist, so unchanged folders cost one lookup for the
// whole folder; that holds because children are always written before
// their parents, however the writing is cut short.
func (w *Workspace) writeFlatTree(entries []flatEntry, st *Stats) (git.Hash, error) {
	root, err := buildTree(entries, 0)
	if err != nil {
		return git.ZeroHash, err
	}
	var levels [][]*treeNode // the missing trees by depth
	var find func(n *treeNode, depth int)
	find = func(n *treeNode, depth int) {
		if w.DB.HasForWrite(n.hash) {
			return
		}
		for _, c := range n.children {
			find(c, depth+1)
		}
		for len(levels) <= depth {
			levels = append(levels, nil)
		}
		levels[depth] = append(levels[depth], n)
	}
	find(root, 0)
	// Deepest first; the trees of one depth in parallel, since each write
	// waits mostly on the file system.
	for d := len(levels) - 1; d >= 0; d-- {
		if err := w.writeTrees(levels[d]); err != nil {
			return git.ZeroHash, err
		}
		st.Trees += len(levels[d])
	}
	return root.hash, nil
}

// treeWriters is how many trees are written at once.
const treeWriters = 8

func (w *Workspace) writeTrees(nodes []*treeNode) error {
	errs := make([]error, len(nodes))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(treeWriters, len(nodes)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(nodes); i = int(next.Add(1) - 1) {
				_, errs[i] = w.DB.Write(odb.TypeTree, nodes[i].data)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
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
		list = append(list, odb.TreeEntry{Name: name, Mode: odb.ModeTree, Hash: child.hash})
		i = j
	}
	n.data = odb.EncodeTree(list)
	n.hash = odb.HashObject(odb.TypeTree, n.data)
	return n, nil
}
