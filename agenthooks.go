package gitguard

import (
	"context"
	"errors"

	"github.com/gitguard/gitguard/patchstore/record"
)

// What agent adapters (package agent and its children) need of a Guard
// beyond the call API: read a run's named calls without resolving the
// active run, the work tree's private state folder, and the watch daemon's
// end.

// ReadRunCalls reads run id with the records of the named calls only (none
// when no call is named), so its cost does not grow with the run's length.
// It returns ErrUnknownRun when the run does not exist.
func (g *Guard) ReadRunCalls(ctx context.Context, id record.RunID, calls ...record.CallID) (*Run, error) {
	return g.store.ReadRunCalls(ctx, id, calls...)
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
