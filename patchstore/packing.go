package patchstore

import (
	"context"

	"github.com/gitguard/gitguard/patchstore/record"
)

// commitPacked is commit storing the checkpoint's objects (and those the
// caller wrote in an enclosing batch) as one small pack instead of some
// twenty loose objects, then merging gitguard's packs when they pile up
// (see odb.Consolidate), so that the disk a call takes stays near the
// bytes it records.
func (s *Store) commitPacked(ctx context.Context, id record.RunID, want *callFilter, mutate Mutation) (*Run, error) {
	s.db.StartPackBatch()
	r, err := s.commit(ctx, id, want, mutate)
	// The checkpoint's objects went out with write's Sync; this stores what
	// a failed attempt left collected.
	if end := s.db.EndPackBatch(); err == nil && end != nil {
		err = end
	}
	if err == nil {
		// Merging is an optimisation: the checkpoint is recorded either way.
		_ = s.db.Consolidate()
	}
	return r, err
}
