package odb

import (
	"bytes"
	"sync"

	"github.com/gitguard/gitguard/internal/git"
)

// memoBudget bounds the content a read memo holds; past it, objects are
// read from disk again.
const memoBudget = 8 << 20

// maxMemoObject is the largest content a read memo holds: records, trees
// and commits are small, and a file's content is read once anyway.
const maxMemoObject = 64 << 10

// readMemo remembers the objects read while an operation that reads a few
// objects many times runs (see DB.Memo): a tool call's finish reads the
// run's newest checkpoint to find the call, to compare it with the other
// calls and to commit on it, its commit seven times and its root tree
// five.
type readMemo struct {
	mu    sync.Mutex
	open  int // operations remembering (Memo)
	m     map[git.Hash]memoObject
	bytes int
}

type memoObject struct {
	t    Type
	data []byte
}

// Memo makes the database remember the objects it reads until end is
// called, so that an operation reading the same records, trees and commits
// several times inflates each once. Calls may nest and overlap; the memory
// is dropped when the last ends.
//
// An id names one content, so a remembered object reads as it would from
// disk. What the memo does not tell is whether the object is still on
// disk: existence checks (Has, Reuse, Ensure) look at the disk whatever
// was read, and a checkpoint's writer checks what its new checkpoint names
// with them before and after its ref moves (patchstore's intact.go). Keep
// a memo to one operation, not a process's life.
//
// When the last ends, the trees decoded and the objects remembered for
// writing again (Restore) are cut down to what a process keeps between
// operations, and the pages of the mapped packs it read are let go (and
// again once operations pause, for reads outside any), so that one
// serving many stays small.
func (db *DB) Memo() (end func()) {
	db.memo.mu.Lock()
	db.memo.open++
	db.memo.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			db.memo.mu.Lock()
			defer db.memo.mu.Unlock()
			if db.memo.open--; db.memo.open == 0 {
				db.memo.m, db.memo.bytes = nil, 0
				// The operation's checkpoint is on its ref and checked:
				// what it wrote and read need not be remembered.
				db.trees.trim(treeCacheIdle)
				db.kept.trim(recentIdle)
				db.packs.releaseMapped()
				db.packs.releaseWhenIdle(db.memo.busy)
			}
		})
	}
}

// busy reports whether an operation is remembering.
func (r *readMemo) busy() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open > 0
}

// get returns a remembered object. The content is shared: the caller
// must not change it.
func (r *readMemo) get(h git.Hash) (memoObject, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.m[h]
	return o, ok
}

// add remembers a copy of an object read, while an operation remembers.
func (r *readMemo) add(h git.Hash, t Type, data []byte) {
	if len(data) > maxMemoObject {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.open == 0 || r.bytes+len(data) > memoBudget {
		return
	}
	if r.m == nil {
		r.m = map[git.Hash]memoObject{}
	}
	if _, ok := r.m[h]; !ok {
		r.m[h] = memoObject{t: t, data: bytes.Clone(data)}
		r.bytes += len(data)
	}
}
