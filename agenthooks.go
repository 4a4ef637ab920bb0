package gitguard

import (
	"context"
	"errors"

	"github.com/gitguard/gitguard/record"
)

// What agent adapters (package agent and its children) need of a Guard
// beyond the call API: read a run's named calls without resolving the
// active run, the work tree's private state folder, and the watch daemon's
// end.

// ReadRunCalls reads run id with the records of the named calls only (none
// when no call is named), so its cost does not grow with the run's length.
// It returns ErrUnknownRun when the run does not exist.
func (g *Guard) ReadRunCalls(ctx context.Context, id record.RunID, calls ...record.CallID) (*Run, error) {
	return runOf(g.store.ReadRunCalls(ctx, id, calls...))
}

// StateDir returns the folder of the work tree's private state
// (.git/gitguard, per linked worktree). It is never in the work tree; it
// may not exist yet.
func (g *Guard) StateDir() string { return g.h.StateDir() }

// DaemonRunning tells whether the work tree's watch daemon answers.
func (g *Guard) DaemonRunning(ctx context.Context) bool {
	_, err := g.WatchStatus(ctx, false)
	return err == nil
}

// StopDaemon asks the work tree's watch daemon to stop. It reports whether
// one was running; no daemon is no error.
func (g *Guard) StopDaemon(ctx context.Context) (bool, error) {
	_, err := g.WatchStatus(ctx, true)
	if errors.Is(err, ErrNoDaemon) {
		return false, nil
	}
	return err == nil, err
}

// CallFinishStarted finishes call callID of run runID as CallFinish does
// when the call is recorded as started, and returns the run after it and
// the call as it was recorded. Otherwise it records nothing and returns a
// nil run with the call as recorded: nil when the run or the call does
// not exist, or a call in another state. An agent adapter decides from
// that what an after event without a started call means, from the one
// read of the run the finish needs anyway.
func (g *Guard) CallFinishStarted(ctx context.Context, runID record.RunID, callID record.CallID, o FinishOptions) (*Run, *record.Call, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	if o.Status == "" {
		o.Status = record.StatusSucceeded
	}
	id, err := g.ResolveRun(ctx, runID, false)
	if err != nil {
		return nil, nil, err
	}
	// The states and patches captured go into the checkpoint's pack.
	g.db.StartPackBatch()
	defer g.db.EndPackBatch()
	// The run's newest checkpoint is read to find the call, to compare it
	// with the other calls and to commit on: inflated once.
	defer g.db.Memo()()
	run, err := g.store.ReadRunCalls(ctx, id, callID)
	if errors.Is(err, ErrUnknownRun) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	c := run.Calls[callID]
	if c == nil || c.Ledger.Status != record.StatusStarted {
		return nil, recordOf(c), nil
	}
	next, err := g.finishStarted(ctx, run, c, callID, o, nil, nil)
	return newRun(next), &c.Call, err
}
