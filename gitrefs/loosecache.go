package gitrefs

import (
	"strings"
	"sync"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/record"
)

// A call's finish lists every run ref to compare its changes with other
// runs' calls, and a work tree keeps a ref per run it ever recorded: with
// hundreds, reading each loose ref file (open, read, close) was most of a
// shell call's finish in the watch daemon. The process remembers what it
// read of each file by the file's identity (git.FileID: inode, size, times)
// and reads again only a file whose identity changed. git and gitguard
// write a ref by renaming a new file onto it, which changes the inode; a
// file rewritten in place changes its change time, and a file changed so
// recently that a rewrite could keep its times (git.FileID.Racy), or one
// whose identity has no inode and change time (Windows), is not
// remembered.

// looseRefs remembers the loose ref files read by this process: 8,192 of
// them (about 2 MiB), then it starts over.
var looseRefs = looseMemo{max: 8192}

type looseMemo struct {
	mu  sync.Mutex
	max int
	m   map[string]looseRef
}

type looseRef struct {
	id   git.FileID
	hash record.Hash
}

// readLoose returns the object id the loose ref file at path holds, from
// memory while the file is the one read; errNotPlain for a file that holds
// anything else (a symbolic ref, a broken one) or is too long.
func readLoose(path string) (record.Hash, error) {
	id := git.Identify(path)
	looseRefs.mu.Lock()
	seen, ok := looseRefs.m[path]
	looseRefs.mu.Unlock()
	if ok && seen.id == id {
		return seen.hash, nil
	}
	data, err := readSmall(path)
	if err != nil {
		return record.ZeroHash, err
	}
	h, err := record.ParseHash(strings.TrimSpace(string(data)))
	if err != nil {
		return record.ZeroHash, errNotPlain
	}
	// Without an inode number (Windows) a rewrite in place that puts the
	// old time back would look unchanged: nothing is remembered there.
	if id.Exist && id.Ino != 0 && !id.Racy(time.Now()) {
		looseRefs.put(path, looseRef{id: id, hash: h})
	}
	return h, nil
}

func (c *looseMemo) put(path string, r looseRef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = map[string]looseRef{}
	}
	c.m[path] = r
}
