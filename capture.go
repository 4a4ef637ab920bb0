package gitguard

import (
	"context"
	"fmt"

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
		c, err := callstate.Started(tip, callID)
		if err != nil {
			return nil, err
		}
		if len(c.Ledger.Paths) == 0 && len(c.Before) == 0 && !c.Ledger.BeforeTree.IsZero() {
			return nil, fmt.Errorf("call %s captures the whole workspace already: %w", callID, ErrCallState)
		}
		c.Touch()
		have := map[string]bool{}
		for _, b := range c.Before {
			have[b.Path] = true
		}
		var added []record.PathState
		for _, s := range states {
			if !have[s.Path] {
				c.Before = append(c.Before, s)
				c.Ledger.Paths = append(c.Ledger.Paths, s.Path)
				added = append(added, s)
			}
		}
		wt, over, err := g.maker().Overlay(tip.Checkpoint.WorktreeTree, added)
		if err != nil {
			return nil, err
		}
		return &record.Checkpoint{Kind: record.KindCallStart, CallID: callID, WorktreeTree: wt, Partial: true,
			Oversize: over, IndexTree: tip.Checkpoint.IndexTree, Unmerged: tip.Checkpoint.Unmerged, Head: tip.Checkpoint.Head,
			StepID: tip.Checkpoint.StepID}, nil
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
	patches, after, err := g.pathPatches(c, callID, paths)
	if err != nil {
		return nil, err
	}
	return g.store.CommitCalls(ctx, id, []record.CallID{callID}, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		c, err := callstate.Started(tip, callID)
		if err != nil {
			return nil, err
		}
		c.Touch()
		c.Patches = filepatch.Merge(c.Patches, patches, paths)
		c.Ledger.Patches = len(c.Patches)
		wt, over, err := g.maker().Overlay(tip.Checkpoint.WorktreeTree, after)
		if err != nil {
			return nil, err
		}
		return &record.Checkpoint{Kind: record.KindCallFinish, CallID: callID, WorktreeTree: wt, Partial: true,
			Oversize: over, IndexTree: tip.Checkpoint.IndexTree, Unmerged: tip.Checkpoint.Unmerged, Head: tip.Checkpoint.Head,
			StepID: tip.Checkpoint.StepID, Label: "captured after state"}, nil
	})
}

// pathPatches captures the after state of declared paths and diffs each
// against its before state.
func (g *Guard) pathPatches(c *patchstore.Call, callID record.CallID, paths []string) ([]record.FilePatch, []record.PathState, error) {
	if err := callstate.Captured(c, callID, paths); err != nil {
		return nil, nil, err
	}
	return g.maker().Paths(callID, c.Before, paths)
}

// maker builds patches with the workspace as it is now (settings may
// reopen it).
func (g *Guard) maker() *filepatch.Maker {
	return &filepatch.Maker{DB: g.db, WS: g.ws, Store: g.store}
}
