package workspace

import (
	"sort"
	"strings"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// A run's first checkpoint counts the paths in which the work tree
// differs from HEAD, and the diff reads HEAD's tree of every folder on the
// way to a change: on 100k files with 100 new ones, 146 trees inflated one
// by one from the packs, 3 ms. Those folders are the ones the walk found
// changed against the index, and HEAD's trees are mostly the index's, so
// a snapshot taken for such a comparison keeps in memory the index's tree
// of each changed folder (odb's Remember), which the diff then reads
// instead (odb's readTreeKept). Each is built one level deep from the
// index entries, its subfolders named by the cache-tree, and kept only
// when it hashes to the cache-tree's id for the folder: a stale cache-tree
// or an entry git's write-tree would treat apart costs the folder its
// shortcut, never a wrong tree.

// keepIndexTrees remembers the index's tree of each changed folder that
// the cache-tree names (see above).
func (s *scan) keepIndexTrees() {
	trees := s.cacheTrees
	if trees == nil {
		return // no cache-tree to build from
	}
	entries := s.idx.Entries
	for dir := range s.changedDirs {
		want, ok := trees[dir]
		if !ok {
			continue
		}
		lo, hi, prefix := 0, len(entries), ""
		if dir != "" {
			prefix = dir + "/"
			lo = sort.Search(len(entries), func(i int) bool { return entries[i].Path >= prefix })
			// Every path below dir/ sorts before dir0 ('0' follows '/').
			hi = sort.Search(len(entries), func(i int) bool { return entries[i].Path >= dir+"0" })
		}
		if data, ok := indexTreeLevel(entries[lo:hi], prefix, trees); ok && odb.HashObject(odb.TypeTree, data) == want {
			s.w.db.Remember(want, odb.TypeTree, data)
		}
	}
}

// indexTreeLevel encodes the tree of the folder prefix from its index
// entries (all of them below it, in index order), each subfolder by its id
// in trees. ok is false for an entry write-tree treats apart or a
// subfolder without an id.
func indexTreeLevel(entries []IndexEntry, prefix string, trees map[string]record.Hash) (_ []byte, ok bool) {
	var list []odb.TreeEntry
	for i := 0; i < len(entries); {
		e := &entries[i]
		if e.IntentToAdd || e.Stage != 0 || e.Mode == record.ModeTree || !strings.HasPrefix(e.Path, prefix) {
			return nil, false
		}
		rest := e.Path[len(prefix):]
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			list = append(list, odb.TreeEntry{Name: rest, Mode: e.Mode, Hash: e.Hash})
			i++
			continue
		}
		sub := prefix + rest[:slash]
		h, found := trees[sub]
		if !found {
			return nil, false
		}
		list = append(list, odb.TreeEntry{Name: rest[:slash], Mode: record.ModeTree, Hash: h})
		end, start := sub+"0", i
		i = start + sort.Search(len(entries)-start, func(k int) bool { return entries[start+k].Path >= end })
	}
	return odb.EncodeTree(list), true
}
