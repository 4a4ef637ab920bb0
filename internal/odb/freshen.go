package odb

import (
	"os"
	"sync"
	"time"
)

// Freshening, as git does it (freshen_loose_object, freshen_packed_object):
// when a writer finds an object already stored and names it instead of
// writing it again, the file holding it (the loose object, or the whole
// pack) gets the current time as its modification time. git prune and
// git gc --prune=<date> delete unreachable objects by that time, so an old
// unreachable object that a new checkpoint is about to name is not taken
// for garbage (the default grace is two weeks: an object written by an
// abandoned snapshot a month ago and reused today would otherwise go).
//
// A file is freshened only when its time is over refreshAfter old, and
// looked at at most once per refreshAfter in a process: a snapshot that
// reuses thousands of unchanged blobs from one pack costs one stat, and
// reusing an object written lately costs the stat that finding it cost
// before. Git itself freshens a pack once per process, and a loose object
// every time, whatever its age.

// refreshAfter is how long a freshened file is taken as fresh by this
// process: far below any grace period git prunes with (hours to weeks),
// so that a long-running process (the watch daemon, serve) freshens again.
const refreshAfter = time.Hour

// maxFreshened bounds the memory of freshened files; past it the memory is
// cleared and files are freshened again on their next reuse. What it saves
// is a stat per reuse of a pack (a loose object is looked for anyway), and
// a process uses tens of packs at a time; but it remembers the packs a
// merge deleted too, and the watch daemon writes a pack per event: a
// larger bound only held the names of packs long gone.
const maxFreshened = 1 << 10

// freshened remembers which files this process freshened, and when.
type freshened struct {
	mu sync.Mutex
	at map[string]time.Time // by file path: a loose object or a .pack
}

// freshen sets the modification time of the object file or pack at path
// to now, unless this process did so lately. It reports false when the
// file could not be freshened (it vanished, or belongs to another user);
// the caller then writes the object again, as git does. A loose object
// freshened lately is still looked for (git prune may have deleted it
// since); a pack's presence is what its mapped index says.
func (db *DB) freshen(path string, loose bool) bool {
	now := time.Now()
	db.fresh.mu.Lock()
	t, ok := db.fresh.at[path]
	db.fresh.mu.Unlock()
	if ok && now.Sub(t) < refreshAfter {
		if loose {
			_, err := os.Lstat(path)
			return err == nil
		}
		return true
	}
	// A file modified lately is fresh already (most reused objects were
	// written by the snapshot before): a stat costs no write to the disk.
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	if age := now.Sub(fi.ModTime()); age > refreshAfter || age < -refreshAfter {
		if err := os.Chtimes(path, now, now); err != nil {
			return false
		}
	}
	db.fresh.mu.Lock()
	if db.fresh.at == nil || len(db.fresh.at) >= maxFreshened {
		db.fresh.at = map[string]time.Time{}
	}
	db.fresh.at[path] = now
	db.fresh.mu.Unlock()
	return true
}
