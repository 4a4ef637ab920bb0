package odb

import (
	"sync"

	"github.com/gitguard/gitguard/internal/git"
)

// treeCacheBudget bounds the trees a treeCache holds, counted in bytes of
// their encoded form (all the trees of a 100,000-file work tree take
// 5 MiB).
const treeCacheBudget = 16 << 20

// treeCache keeps trees decoded lately, oldest forgotten first. A
// checkpoint reads the same trees several times: its diff with the
// previous checkpoint and its objects-present check (Ensure) both walk the
// trees its snapshot wrote and those of HEAD beside them. An id names one
// content, so an entry never goes stale. The entries are shared between
// readers, which must not change them.
type treeCache struct {
	mu    sync.Mutex
	m     map[git.Hash][]TreeEntry
	order []git.Hash // oldest first
	size  map[git.Hash]int
	bytes int
}

func (c *treeCache) get(h git.Hash) ([]TreeEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entries, ok := c.m[h]
	return entries, ok
}

// add remembers the entries of tree h, whose encoded form takes size bytes.
func (c *treeCache) add(h git.Hash, entries []TreeEntry, size int) {
	if size > treeCacheBudget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m, c.size = map[git.Hash][]TreeEntry{}, map[git.Hash]int{}
	}
	if _, ok := c.m[h]; ok {
		return
	}
	c.m[h], c.size[h] = entries, size
	c.order = append(c.order, h)
	c.bytes += size
	for c.bytes > treeCacheBudget && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= c.size[old]
		delete(c.m, old)
		delete(c.size, old)
	}
}
