package odb

import (
	"testing"

	"github.com/gitguard/gitguard/internal/git"
)

func TestTreeCacheForgetsOldestPastBudget(t *testing.T) {
	var c treeCache
	id := func(i int) git.Hash { return git.Hash{byte(i), byte(i >> 8)} }
	size := treeCacheBudget / 4
	for i := 0; i < 6; i++ {
		c.add(id(i), []TreeEntry{{Name: "f", Mode: ModeFile}}, size)
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
		if e, ok := c.get(id(i)); !ok || len(e) != 1 || e[0].Name != "f" {
			t.Errorf("tree %d: got %v, %v; want the one entry added", i, e, ok)
		}
	}
	c.add(id(7), nil, treeCacheBudget+1)
	if _, ok := c.get(id(7)); ok {
		t.Error("a tree larger than the budget was kept")
	}
	if len(c.m) != len(c.order) || len(c.m) != len(c.size) {
		t.Errorf("map %d, order %d, sizes %d: out of step", len(c.m), len(c.order), len(c.size))
	}
}
