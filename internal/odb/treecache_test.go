package odb

import (
	"fmt"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
)

// cacheTree is a tree of n entries, to fill a cache with.
func cacheTree(n int) []TreeEntry {
	out := make([]TreeEntry, n)
	for i := range out {
		out[i] = TreeEntry{Name: fmt.Sprintf("f%06d", i), Mode: ModeFile}
	}
	return out
}

func TestTreeCacheForgetsOldestPastBudget(t *testing.T) {
	var c treeCache
	id := func(i int) git.Hash { return git.Hash{byte(i), byte(i >> 8)} }
	// Four of these fit in the budget, five do not.
	n := treeCacheBudget / 4 / (treeEntrySize + 7) * 9 / 10
	for i := 0; i < 6; i++ {
		c.add(id(i), cacheTree(n))
	}
	if c.bytes > treeCacheBudget {
		t.Errorf("cache holds %d bytes, budget %d", c.bytes, treeCacheBudget)
	}
	for i := 0; i < 2; i++ {
		if _, ok := c.get(id(i)); ok {
			t.Errorf("tree %d kept past the budget; the oldest go first", i)
		}
	}
	for i := 2; i < 6; i++ {
		if e, ok := c.get(id(i)); !ok || len(e) != n || e[0].Name != "f000000" {
			t.Errorf("tree %d: got %d entries, %v; want the %d added", i, len(e), ok, n)
		}
	}
	c.add(id(7), cacheTree(treeCacheBudget/treeEntrySize+1))
	if _, ok := c.get(id(7)); ok {
		t.Error("a tree larger than the budget was kept")
	}
	if len(c.m) != len(c.order) || len(c.m) != len(c.size) {
		t.Errorf("map %d, order %d, sizes %d: out of step", len(c.m), len(c.order), len(c.size))
	}
}

// The memory counted is the decoded entries', not the encoded tree's: a
// tree of many short names takes several times its encoded size decoded,
// which a budget of encoded bytes let grow past it.
func TestTreeCacheCountsDecodedMemory(t *testing.T) {
	var c treeCache
	for i := 0; i < 4000; i++ {
		c.add(git.Hash{byte(i), byte(i >> 8), 1}, cacheTree(100))
	}
	var held int
	for _, e := range c.m {
		held += cap(e)*treeEntrySize + len(e)*7
	}
	if held > treeCacheBudget {
		t.Errorf("the cached entries take %d bytes, over the budget of %d", held, treeCacheBudget)
	}
}

// Between operations the cache is cut down to treeCacheIdle, newest kept.
func TestTreeCacheTrim(t *testing.T) {
	var c treeCache
	id := func(i int) git.Hash { return git.Hash{byte(i), byte(i >> 8), 2} }
	for i := 0; i < 1000; i++ {
		c.add(id(i), cacheTree(50))
	}
	c.trim(treeCacheIdle)
	if c.bytes > treeCacheIdle || c.bytes <= 0 {
		t.Errorf("after trim the cache holds %d bytes; want 1..%d", c.bytes, treeCacheIdle)
	}
	if _, ok := c.get(id(999)); !ok {
		t.Error("the newest tree was forgotten")
	}
	if _, ok := c.get(id(0)); ok {
		t.Error("the oldest tree was kept")
	}
	if len(c.m) != len(c.order) || len(c.m) != len(c.size) {
		t.Errorf("map %d, order %d, sizes %d: out of step", len(c.m), len(c.order), len(c.size))
	}
}
