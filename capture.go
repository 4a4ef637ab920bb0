package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/internal/callstate"
	"github.com/gitguard/gitguard/internal/filepatch"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// CaptureBefore adds paths to a started call, recording their current
// state as the call's before state. An agent runtime calls it just before
// writing a file the call did not declare at start.
func (g *Guard) CaptureBefore(ctx context.Context, runID record.RunID, callID record.CallID, paths ...string) (*Run, error) {
	return runOf(g.captureBefore(ctx, runID, callID, paths...))
}

// captureBefore is CaptureBefore with the store's run.
func (g *Guard) captureBefore(ctx context.Context, runID record.RunID, callID record.CallID, paths ...string) (*patchstore.Run, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	id, err := g.ResolveRun(ctx, runID, false)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		if err := record.ValidatePath(p); err != nil {
			return nil, err
		}
	}
	if tip, err := g.store.ReadRunCalls(ctx, id); err == nil {
		if err := g.useRunSettings(ctx, tip.Checkpoint); err != nil {
			return nil, err
		}
	}
	states, err := g.maker().Capture(paths)
	if err != nil {
		return nil, err
	}
	return g.store.CommitCalls(ctx, id, []record.CallID{callID}, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		return callstate.AddBefore(tip, callID, states, g.maker())
	})
}

// readStartedCall reads the run (the active one when runID is empty) with
// the records of the started call callID only, and that call.
func (g *Guard) readStartedCall(ctx context.Context, runID record.RunID, callID record.CallID) (*patchstore.Run, *patchstore.Call, error) {
	id, err := g.ResolveRun(ctx, runID, false)
	if err != nil {
		return nil, nil, err
	}
	run, err := g.store.ReadRunCalls(ctx, id, callID)
	if err != nil {
		return nil, nil, err
	}
	c, err := callstate.Started(run, callID)
	return run, c, err
}

// CaptureAfter records the after state of paths of a started call now,
// making their patches durable before the call finishes. CallFinish
// captures every declared path again, so calling it is optional.
func (g *Guard) CaptureAfter(ctx context.Context, runID record.RunID, callID record.CallID, paths ...string) (*Run, error) {
	return runOf(g.captureAfter(ctx, runID, callID, paths...))
}

// captureAfter is CaptureAfter with the store's run.
func (g *Guard) captureAfter(ctx context.Context, runID record.RunID, callID record.CallID, paths ...string) (*patchstore.Run, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	run, c, err := g.readStartedCall(ctx, runID, callID)
	if err != nil {
		return nil, err
	}
	id := run.ID
	if err := g.useRunSettings(ctx, run.Checkpoint); err != nil {
		return nil, err
	}
	patches, after, err := callstate.PathPatches(g.maker(), c, callID, paths)
	if err != nil {
		return nil, err
	}
	return g.store.CommitCalls(ctx, id, []record.CallID{callID}, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		return callstate.AddAfter(tip, callID, patches, paths, after, g.maker())
	})
}

// maker builds patches with the workspace as it is now (settings may
// reopen it).
func (g *Guard) maker() *filepatch.Maker {
	return &filepatch.Maker{DB: g.db, WS: g.ws, Store: g.store}
}
