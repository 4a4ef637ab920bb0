package gitguard

import (
	"context"
	"errors"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/workspace"
)

// What agent adapters (package agent and its children) need of a Guard
// beyond the call API: read a run without resolving the active one, the
// work tree's private state folder, and the watch daemon's end.

// ReadRun reads run id with every call's records. It returns
// patchstore.ErrUnknownRun when the run does not exist. It writes nothing.
func (g *Guard) ReadRun(ctx context.Context, id string) (*patchstore.Run, error) {
	return g.Store.ReadRun(ctx, id)
}

// ReadRunCalls reads run id with the records of the named calls only (none
// when no call is named), so its cost does not grow with the run's length.
// It returns patchstore.ErrUnknownRun when the run does not exist.
func (g *Guard) ReadRunCalls(ctx context.Context, id string, calls ...string) (*patchstore.Run, error) {
	return g.Store.ReadRunCalls(ctx, id, calls...)
}

// WorkTree returns the absolute path of the top of the guarded work tree.
func (g *Guard) WorkTree() string { return g.Repo.WorkTree }

// StateDir returns the folder of the work tree's private state
// (.git/gitguard, per linked worktree). It is never in the work tree; it
// may not exist yet.
func (g *Guard) StateDir() string { return g.WS.StateDir() }

// DaemonRunning tells whether the work tree's watch daemon answers.
func (g *Guard) DaemonRunning(ctx context.Context) bool {
	_, err := g.WS.DaemonStatus(ctx, false)
	return err == nil
}

// StopDaemon asks the work tree's watch daemon to stop. It reports whether
// one was running; no daemon is no error.
func (g *Guard) StopDaemon(ctx context.Context) (bool, error) {
	_, err := g.WS.DaemonStatus(ctx, true)
	if errors.Is(err, workspace.ErrNoDaemon) {
		return false, nil
	}
	return err == nil, err
}
