package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/internal/filepatch"
	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/internal/undoplan"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// DiffOptions choose which of the agent's changes to show.
type DiffOptions struct {
	Call  record.CallID // one call's patch
	Since *record.Entry // every patch recorded after this checkpoint
	Globs []string      // only paths matching these
}

// NetPatch is the agent's net change to one path over the chosen calls:
// the oldest before state and the newest after state.
type NetPatch struct {
	Path     string
	Before   record.State
	After    record.State
	Calls    []record.CallID // oldest first
	Text     []byte          // git-style patch, `git apply`-able against Before
	Binary   bool
	Oversize bool
}

// Diff returns the agent's changes as net patches, sorted by path: one
// call's, those after a checkpoint, or the whole run's.
func (g *Guard) Diff(ctx context.Context, runID record.RunID, o DiffOptions) ([]NetPatch, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	var run *patchstore.Run
	var err error
	if o.Call != "" {
		// One call's patch: read that call only.
		if run, err = g.readRunHead(ctx, runID); err == nil {
			err = g.store.LoadCalls(run, o.Call)
		}
	} else {
		run, err = g.readRun(ctx, runID)
	}
	if err != nil {
		return nil, err
	}
	calls, err := runread.Select(run, o.Call, o.Since)
	if err != nil {
		return nil, err
	}
	byPath, paths := undoplan.PatchesByPath(calls, o.Globs)
	nets, err := filepatch.NetPatches(g.db, byPath, paths)
	if err != nil {
		return nil, err
	}
	var out []NetPatch
	for _, n := range nets {
		out = append(out, NetPatch(n))
	}
	return out, nil
}

// readRun reads run id, or the active run when id is empty.
func (g *Guard) readRun(ctx context.Context, id record.RunID) (*patchstore.Run, error) {
	id, err := g.ResolveRun(ctx, id, false)
	if err != nil {
		return nil, err
	}
	run, err := g.store.ReadRun(ctx, id)
	if err != nil {
		return nil, err
	}
	return run, g.useRunSettings(ctx, run.Checkpoint) // status and undo look as the run does
}
