package patchstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gitguard/gitguard/patchstore/record"
)

// ErrDamaged is returned when a checkpoint names objects the repository
// does not have (deleted by git maintenance, say). The run is not lost:
// readers read up to its newest intact checkpoint (see damage.go), and
// Repair re-points it there.
var ErrDamaged = errors.New("checkpoint names missing objects")

// maxMaintenanceWait bounds how long a writer waits, after its ref moved,
// for the git maintenance it saw running to finish before it checks its
// objects a last time.
const maxMaintenanceWait = 2 * time.Second

// pruneGranularity is the resolution of git prune's expiry check (whole
// seconds): an object written back within the second a prune started may
// still be taken by that prune, so a write-back with no maintenance mark
// to wait for is checked again after it.
const pruneGranularity = 1100 * time.Millisecond

// keepIntact runs once the run's ref moved from tip to next. A git gc
// --prune=now or git repack -ad that walked the refs before the move did
// not see next's new objects and may delete them, so each object next
// names that tip did not is checked and, if gone, written back from this
// process's memory (odb's restore.go). Maintenance seen running at the
// move is waited for (bounded) and the check repeated after it: a process
// that started after the move sees the ref and keeps everything.
//
// It returns an error wrapping ErrDamaged when an object is gone for good;
// the ref has moved by then, and readers fall back to the newest intact
// checkpoint.
func (s *Store) keepIntact(ctx context.Context, tip, next *Run) error {
	seen := s.db.Maintenance()
	restored, err := s.ensureNamed(tip, next)
	switch {
	case len(seen) > 0:
		s.waitMaintenance(ctx, seen)
		var n int
		n, err = s.ensureNamed(tip, next)
		restored += n
	case restored > 0:
		// Deleted with no mark left (a git prune of its own): that prune
		// may still be at work; look again once it cannot be.
		if sleep(ctx, pruneGranularity) {
			_, err = s.ensureNamed(tip, next)
		}
	}
	if err != nil {
		return fmt.Errorf("%w: checkpoint %s of run %s (%s): %w", ErrDamaged, next.Checkpoint.ID, next.ID, next.Commit.Short(), err)
	}
	return nil
}

// ensureNamed checks (and writes back) next's commit and the objects its
// trees name that tip's do not. For a run's first checkpoint the work
// tree and index trees are compared with HEAD's tree, which the user's
// refs keep.
func (s *Store) ensureNamed(tip, next *Run) (int, error) {
	restored := 0
	ok, err := s.db.EnsureObject(next.Commit)
	if ok {
		restored++
	}
	var pairs [][2]record.Hash
	if tip.Exists() {
		pairs = append(pairs, [2]record.Hash{next.tree, tip.tree})
	} else {
		var head record.Hash
		if h := next.Checkpoint.Head.Commit; !h.IsZero() {
			if c, err := s.db.ReadCommit(h); err == nil {
				head = c.Tree
			}
		}
		pairs = append(pairs,
			[2]record.Hash{next.Checkpoint.WorktreeTree, head},
			[2]record.Hash{next.Checkpoint.IndexTree, head},
			[2]record.Hash{next.tree, record.ZeroHash})
	}
	n, terr := s.db.EnsureTrees(pairs...)
	return restored + n, errors.Join(err, terr)
}

// waitMaintenance waits, at most maxMaintenanceWait, until none of the
// maintenance marks seen (odb.DB.Maintenance) is there any more.
func (s *Store) waitMaintenance(ctx context.Context, seen []string) {
	deadline := time.Now().Add(maxMaintenanceWait)
	step := 5 * time.Millisecond
	for time.Now().Before(deadline) {
		now := s.db.Maintenance()
		if !slices.ContainsFunc(seen, func(m string) bool { return slices.Contains(now, m) }) {
			return
		}
		if !sleep(ctx, step) {
			return
		}
		step = min(2*step, 50*time.Millisecond)
	}
}

// sleep waits d, or less when ctx ends; it reports whether it waited d.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

