package gitrefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// A process killed while it holds a ref's lock (between taking <ref>.lock
// and renaming it onto the ref: one round of flushes) leaves the lock
// behind, and git's protocol has no owner to ask: every later update of
// the ref would find it taken, and the run stay busy for good. gitguard
// breaks such a lock when it is sure nobody holds it:
//
//   - every gitguard process holds a shared lock on the writers file (see
//     holdWriters) from before it takes a ref's lock until it has let go of
//     it, and one that breaks a lock holds it exclusively, so no live
//     gitguard writer's lock is ever broken, however slow its flushes;
//   - git takes refs' locks of this namespace only to pack them (git
//     pack-refs, git gc), under packed-refs.lock for its whole run, or
//     for a moment (git update-ref typed by hand): a lock is not broken
//     while packed-refs.lock exists, nor before it is staleAge old.

// staleAge is the age from which a ref's lock that no gitguard process
// holds, taken outside any git pack-refs, is taken for a dead writer's.
const staleAge = time.Second

// writersFile is the file gitguard's ref writers lock (see above).
func (s *Store) writersFile() string {
	return filepath.Join(s.repo.CommonDir, "gitguard", "ref-writers")
}

// holdWriters takes the shared lock on the writers file, waiting out a
// process that is breaking a stale lock; release lets go. Where the lock
// cannot be taken, holding it is skipped: breakStale then cannot take its
// exclusive lock either and breaks nothing.
func (s *Store) holdWriters() (release func()) {
	if release, ok := lockFile(s.writersFile(), false); ok {
		return release
	}
	return func() {}
}

// breakStale removes the ref's lock file lock when a dead writer left it
// (see above), and reports whether the lock is gone, so that the caller
// may try to take it again. The caller must not hold the writers file.
func (s *Store) breakStale(lock string) bool {
	release, ok := lockFile(s.writersFile(), true)
	if !ok {
		return false // a gitguard writer is at work: its lock, or soon free
	}
	defer release()
	if _, err := os.Lstat(filepath.Join(s.repo.CommonDir, "packed-refs.lock")); !errors.Is(err, fs.ErrNotExist) {
		return false // git is packing refs, or something is odd: leave it
	}
	fi, err := os.Lstat(lock)
	if errors.Is(err, fs.ErrNotExist) {
		return true // let go meanwhile
	}
	if err != nil || !fi.Mode().IsRegular() || time.Since(fi.ModTime()) < staleAge {
		return false
	}
	return os.Remove(lock) == nil
}
