package patchstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gitguard/gitguard/record"
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

// markLessWait is how long a writer that had to write objects back, with
// no maintenance mark to wait for (a git prune of its own leaves none),
// waits before it looks a last time: that prune may still be at work.
const markLessWait = time.Second

// pollMaintenance is how often a writer waiting for git maintenance looks
// at its objects again: what a prune deletes is written back within this,
// before the next git gc in a loop finds the ref naming a missing object.
const pollMaintenance = 10 * time.Millisecond

// keepIntact runs once the run's ref moved from tip to next, the last of
// chain: the checkpoints written on top of tip, each on the one before. A git gc
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
func (s *Store) keepIntact(ctx context.Context, tip *Run, chain ...*Run) error {
	next := chain[len(chain)-1]
	seen := s.db.Maintenance()
	restored, err := s.ensureChain(tip, chain)
	switch {
	case len(seen) > 0:
		// Look again while the maintenance seen runs, then once after.
		deadline := time.Now().Add(maxMaintenanceWait)
		for time.Now().Before(deadline) && sleep(ctx, pollMaintenance) {
			// Write back what the maintenance deletes meanwhile; the last
			// check, below, decides.
			_, _ = s.ensureChain(tip, chain)
			now := s.db.Maintenance()
			if !slices.ContainsFunc(seen, func(m string) bool { return slices.Contains(now, m) }) {
				break
			}
		}
		_, err = s.ensureChain(tip, chain)
	case restored > 0:
		if sleep(ctx, markLessWait) {
			_, err = s.ensureChain(tip, chain)
		}
	}
	if err != nil {
		return fmt.Errorf("%w: checkpoint %s of run %s (%s): %w", ErrDamaged, next.Checkpoint.ID, next.ID, next.Commit.Short(), err)
	}
	return nil
}

// checkNamed runs before the run's ref moves from tip to next: what git
// maintenance deleted since the objects were written is written back now,
// so that the ref never names a missing commit or tree, on which git gc
// and git repack die (keepIntact then covers deletions racing the move).
func (s *Store) checkNamed(tip *Run, chain ...*Run) error {
	next := chain[len(chain)-1]
	if _, err := s.ensureChain(tip, chain); err != nil {
		return fmt.Errorf("%w: checkpoint %s of run %s, before it was recorded: %w", ErrDamaged, next.Checkpoint.ID, next.ID, err)
	}
	return nil
}

// ensureChain is ensureNamed for each checkpoint of chain on the one
// before it, the first on tip.
func (s *Store) ensureChain(tip *Run, chain []*Run) (int, error) {
	restored := 0
	for _, next := range chain {
		n, err := s.ensureNamed(tip, next)
		restored += n
		if err != nil {
			return restored, err
		}
		tip = next
	}
	return restored, nil
}

// ensureNamed checks (and writes back) next's commit and the objects its
// trees name that tip's do not. For a run's first checkpoint the work
// tree and index trees are compared with HEAD's tree, which the user's
// refs keep.
func (s *Store) ensureNamed(tip, next *Run) (int, error) {
	if tip.Exists() {
		return s.db.Ensure([]record.Hash{next.Commit}, [2]record.Hash{next.tree, tip.tree})
	}
	var head record.Hash
	if h := next.Checkpoint.Head.Commit; !h.IsZero() {
		if c, err := s.db.ReadCommit(h); err == nil {
			head = c.Tree
		}
	}
	return s.db.Ensure([]record.Hash{next.Commit},
		[2]record.Hash{next.Checkpoint.WorktreeTree, head},
		[2]record.Hash{next.Checkpoint.IndexTree, head},
		[2]record.Hash{next.tree, record.ZeroHash})
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
