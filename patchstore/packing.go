package patchstore

import (
	"context"

	"github.com/gitguard/gitguard/record"
)

// commitPacked is commit storing the checkpoint's objects (and those the
// caller wrote in an enclosing batch) as one small pack instead of some
// twenty loose objects, then merging gitguard's packs when they pile up
// (see odb.Consolidate), so that the disk a call takes stays near the
// bytes it records. With awaited (an agent waits on the command), the
// packs are merged only past a hard bound (odb.ConsolidateIfMany): a merge
// costs more than the rest of such a command, and the routine merges are
// left to the commands nobody waits on.
func (s *Store) commitPacked(ctx context.Context, id record.RunID, want *callFilter, awaited bool, start, mutate Mutation) (*Run, error) {
	s.db.StartPackBatch()
	r, err := s.commit(ctx, id, want, start, mutate)
	// The checkpoint's objects went out with write's Sync; this stores what
	// a failed attempt left collected.
	if end := s.db.EndPackBatch(); err == nil && end != nil {
		err = end
	}
	if err == nil {
		// Merging is an optimisation: the checkpoint is recorded either way.
		if awaited {
			_ = s.db.ConsolidateIfMany()
		} else {
			_ = s.db.Consolidate()
		}
	}
	return r, err
}

// CommitAwaitedCalls is CommitCalls for a command an agent waits on before
// or after each tool use (a call's start and finish): it leaves routine
// merges of gitguard's packs to other commands (see commitPacked).
func (s *Store) CommitAwaitedCalls(ctx context.Context, id record.RunID, calls []record.CallID, mutate Mutation) (*Run, error) {
	return s.commitPacked(ctx, id, selectCalls(calls), true, nil, mutate)
}

// CommitAwaitedCallsStarting is CommitAwaitedCalls on a run that may not
// be recorded yet. When it is not, start describes the run's first
// checkpoint (it is given the empty run) and mutate the next, on top of
// it: both checkpoints go out in one pack, made durable with one round of
// flushes, and the run's ref is created once, naming mutate's, whose
// parent is start's. A crash leaves the run without either or with both.
// When the run is recorded (another writer started it first), start is
// not called.
func (s *Store) CommitAwaitedCallsStarting(ctx context.Context, id record.RunID, calls []record.CallID, start, mutate Mutation) (*Run, error) {
	return s.commitPacked(ctx, id, selectCalls(calls), true, start, mutate)
}
