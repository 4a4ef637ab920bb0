package gitguard

import (
	"context"
	"time"

	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/record"
)

// RunPick is the run a reading command (status, diff, undo, redo, resume,
// ledger, ui) acts on, and why.
type RunPick struct {
	ID record.RunID
	// Newest is set when no run was named and none is active: ID is then
	// the newest run of this work tree (the one that finished last, or was
	// last recorded when it did not finish), as after an agent's session
	// ended and its adapter finished the run.
	Newest bool
	// EndedAt is when the newest run finished (or was last recorded when
	// it did not finish); set with Newest.
	EndedAt time.Time
	// EndedWith names, with Newest, the other runs of this work tree that
	// ended at the same time (within SameEnd of it, and not before it
	// started): sessions that ran and ended together, one of which the
	// user may have meant.
	EndedWith []record.RunID
}

// SameEnd is how close two runs' ends are for PickRun to say they ended at
// the same time.
const SameEnd = 5 * time.Second

// PickRun picks the run a reading command acts on: explicit if given, else
// the active run, else the newest run of this work tree. It returns ErrNoRun
// when this work tree has no run. It reads each run's newest record, and
// writes nothing.
func (g *Guard) PickRun(ctx context.Context, explicit record.RunID) (RunPick, error) {
	id, err := g.ResolveRun(ctx, explicit, true)
	if err != nil || id != "" {
		return RunPick{ID: id}, err
	}
	n, ok, err := runread.NewestRun(ctx, g.store, g.store.WorktreeName(), SameEnd)
	if err != nil {
		return RunPick{}, err
	}
	if !ok {
		return RunPick{}, ErrNoRun
	}
	return RunPick{ID: n.ID, Newest: true, EndedAt: n.EndedAt, EndedWith: n.EndedWith}, nil
}
