package odb

import (
	"fmt"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
)

// Blobs remembered by the file they were streamed from hold no content,
// but their entries take memory all the same: they count against the
// budget, or a process that streams many files (a daemon recording tool
// uses for days) remembers every one.
func TestRecentCountsPathEntries(t *testing.T) {
	var r recent
	path := "/some/work/tree/folder/file-with-a-longish-name.txt"
	n := 2 * recentBudget / (keptOverhead + len(path))
	for i := 0; i < n; i++ {
		r.add(git.Hash{byte(i), byte(i >> 8), byte(i >> 16), 1}, keptObject{t: TypeBlob, path: path, size: 10})
	}
	if r.bytes > recentBudget || len(r.m)*(keptOverhead+len(path)) > recentBudget {
		t.Errorf("%d objects remembered (%d bytes counted), over the budget of %d bytes", len(r.m), r.bytes, recentBudget)
	}
	if len(r.m) != len(r.order) {
		t.Errorf("map %d, order %d: out of step", len(r.m), len(r.order))
	}
}

// When the last operation ends (Memo), the trees decoded and the objects
// remembered are cut down to what a process keeps between operations; the
// newest stay.
func TestMemoEndTrimsCaches(t *testing.T) {
	db := &DB{}
	end := db.Memo()
	var last git.Hash
	for i := 0; i < 20000; i++ {
		last = git.Hash{byte(i), byte(i >> 8), 3}
		db.kept.add(last, keptObject{t: TypeTree, data: []byte(fmt.Sprintf("tree %d with some content", i))})
		db.trees.add(last, []TreeEntry{{Name: fmt.Sprintf("entry-%d", i), Mode: ModeFile}})
	}
	if db.kept.bytes <= recentIdle || db.trees.bytes <= treeCacheIdle {
		t.Fatalf("the test fills too little: %d and %d bytes", db.kept.bytes, db.trees.bytes)
	}
	inner := db.Memo() // nested: the outer one is still open
	inner()
	if db.kept.bytes <= recentIdle {
		t.Error("the caches were cut while an operation was still open")
	}
	end()
	if db.kept.bytes > recentIdle || db.trees.bytes > treeCacheIdle {
		t.Errorf("after the last operation: %d bytes remembered (idle budget %d), %d of trees (idle budget %d)",
			db.kept.bytes, recentIdle, db.trees.bytes, treeCacheIdle)
	}
	if _, ok := db.kept.get(last); !ok {
		t.Error("the newest object was forgotten")
	}
	if _, ok := db.trees.get(last); !ok {
		t.Error("the newest tree was forgotten")
	}
}
