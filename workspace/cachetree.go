package workspace

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/gitguard/gitguard/record"
)

// git's cache-tree (the index's TREE extension) holds the tree of every
// folder whose index entries have not changed since git last wrote trees.
// A whole-tree snapshot mostly finds the work tree as the index has it, so
// the tree of a folder in which nothing differs from the index is taken
// from there instead of being encoded and hashed again: on 100k files in
// 2,000 folders, the worktree tree then costs the few folders that changed
// and their parents. git trusts its cache-tree for write-tree and commit;
// so does gitguard, as it does for the index tree already.

// parseCacheTree reads the valid folders of a TREE extension: folder path
// (slash-separated, "" for the top) to tree id. An invalidated folder
// (entry count -1) is left out; its subfolders may still be valid. It
// returns nil when the extension cannot be read.
func parseCacheTree(ext []byte) map[string]record.Hash {
	out := map[string]record.Hash{}
	rest := ext
	var folder func(parent string, top bool) bool
	folder = func(parent string, top bool) bool {
		nul := bytes.IndexByte(rest, 0)
		if nul < 0 {
			return false
		}
		name := string(rest[:nul])
		rest = rest[nul+1:]
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return false
		}
		countText, subsText, ok := bytes.Cut(rest[:nl], []byte{' '})
		if !ok {
			return false
		}
		count, err1 := strconv.Atoi(string(countText))
		subs, err2 := strconv.Atoi(string(subsText))
		if err1 != nil || err2 != nil || subs < 0 {
			return false
		}
		rest = rest[nl+1:]
		path := name
		switch {
		case top:
			if name != "" {
				return false
			}
		case name == "" || strings.Contains(name, "/"):
			return false
		case parent != "":
			path = parent + "/" + name
		}
		if count >= 0 {
			if len(rest) < 20 {
				return false
			}
			var h record.Hash
			copy(h[:], rest[:20])
			out[path] = h
			rest = rest[20:]
		}
		for i := 0; i < subs; i++ {
			if !folder(path, false) {
				return false
			}
		}
		return true
	}
	if !folder("", true) {
		return nil
	}
	return out
}

// unchangedTrees returns, for the walk just done, the cache-tree's tree of
// every folder whose recorded content is the index's: no tracked entry
// below it changed, went missing or was left to a special case, and
// nothing untracked was recorded below it. ok is false for any other
// folder. converted holds git's ids of the files it hashed.
func (s *scan) unchangedTrees(converted map[string]record.Hash) func(dir string) (record.Hash, bool) {
	trees := s.idx.cachedTrees()
	if len(trees) == 0 {
		return nil
	}
	changed := map[string]bool{}
	mark := func(p string) { // marks every folder above the path p
		for p != "" {
			j := strings.LastIndexByte(p, '/')
			if j < 0 {
				p = ""
			} else {
				p = p[:j]
			}
			if changed[p] {
				return
			}
			changed[p] = true
		}
	}
	for i := range s.idx.Entries {
		e, r := &s.idx.Entries[i], &s.results[i]
		p := strings.TrimSuffix(e.Path, "/")
		h := r.hash
		if h.IsZero() && r.mode.IsFile() {
			h = converted[p]
		}
		if e.IntentToAdd || e.Mode == record.ModeTree || e.Stage != 0 || r.mode != e.Mode || h != e.Hash {
			mark(p)
		}
	}
	for _, u := range s.untracked {
		mark(u.path)
	}
	s.changedDirs, s.cacheTrees = changed, trees
	return func(dir string) (record.Hash, bool) {
		if changed[dir] {
			return record.ZeroHash, false
		}
		h, ok := trees[dir]
		return h, ok
	}
}
