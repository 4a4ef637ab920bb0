package odb

import (
	"sync"
	"unsafe"

	"github.com/gitguard/gitguard/internal/git"
)

// treeCacheBudget bounds the trees a treeCache holds while an operation
// runs, counted in the memory their decoded entries take (all the trees of
// a 100,000-file work tree take about 7 MiB so).
const treeCacheBudget = 24 << 20

// treeCacheIdle is what a treeCache keeps between operations (see
// DB.Memo): a process that serves many (the watch daemon) holds the trees
// of the last few checkpoints, not of everything it ever read.
const treeCacheIdle = 2 << 20

// treeEntrySize is what one cached entry costs beyond its name: the entry
// itself and its share of the map and order slots of its tree.
const treeEntrySize = int(unsafe.Sizeof(TreeEntry{}))

// treeOverhead is what a cached tree costs beyond its entries: its map
// slot, key, slice header and place in the order.
const treeOverhead = 96

// treeMemory is the memory a cached tree takes.
func treeMemory(entries []TreeEntry) int {
	n := treeOverhead + cap(entries)*treeEntrySize
	for _, e := range entries {
		n += len(e.Name)
	}
	return n
}

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

// add remembers the entries of tree h.
func (c *treeCache) add(h git.Hash, entries []TreeEntry) {
	size := treeMemory(entries)
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
	c.shrink(treeCacheBudget)
}

// trim forgets the oldest trees until the cache holds at most budget
// bytes, and lets go of the map's room when most of it went.
func (c *treeCache) trim(budget int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	before := len(c.order)
	c.shrink(budget)
	if len(c.order) < before/2 {
		// A map keeps the room of its largest size: start a smaller one.
		m, size := make(map[git.Hash][]TreeEntry, len(c.order)), make(map[git.Hash]int, len(c.order))
		for _, h := range c.order {
			m[h], size[h] = c.m[h], c.size[h]
		}
		c.m, c.size, c.order = m, size, append([]git.Hash(nil), c.order...)
	}
}

// shrink forgets the oldest trees past budget; c.mu is held.
func (c *treeCache) shrink(budget int) {
	for c.bytes > budget && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= c.size[old]
		delete(c.m, old)
		delete(c.size, old)
	}
	if len(c.order) == 0 {
		c.order = nil // let the backing array go
	}
}
