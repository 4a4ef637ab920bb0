package gitguard

import (
	"context"
	"fmt"

	"github.com/gitguard/gitguard/internal/filepatch"
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
	calls, err := selectCalls(run, o.Call, o.Since)
	if err != nil {
		return nil, err
	}
	byPath, paths := undoplan.PatchesByPath(calls, o.Globs)
	var out []NetPatch
	for _, p := range paths {
		ps := byPath[p]
		first, last := ps[0], ps[len(ps)-1]
		np := NetPatch{Path: p, Before: first.Before(), After: last.After()}
		for _, x := range ps {
			np.Calls = append(np.Calls, x.ToolCallID)
			np.Oversize = np.Oversize || x.Oversize
		}
		if np.Before == np.After {
			continue // later calls put it back
		}
		if len(ps) == 1 {
			text, err := g.db.ReadAs(first.PatchRef, "blob")
			if err != nil {
				return nil, fmt.Errorf("%w: patch of %s: %w", record.ErrCorrupt, p, err)
			}
			np.Text, np.Binary = text, first.Binary
		} else {
			fp, err := g.netPatch(p, np)
			if err != nil {
				return nil, err
			}
			np.Text, np.Binary = fp, np.Binary || np.Oversize
		}
		out = append(out, np)
	}
	return out, nil
}

func (g *Guard) netPatch(path string, np NetPatch) ([]byte, error) {
	if np.Oversize {
		return patchstore.OversizePatch(path, np.Before, np.After), nil
	}
	a, err := filepatch.ReadState(g.db, np.Before)
	if err != nil {
		return nil, err
	}
	b, err := filepatch.ReadState(g.db, np.After)
	if err != nil {
		return nil, err
	}
	text, _ := patchstore.FormatPatch(path, np.Before, np.After, a, b)
	return text, nil
}

// selectCalls picks calls oldest first: one by id, those finished after a
// checkpoint, or all.
func selectCalls(run *patchstore.Run, call record.CallID, since *record.Entry) ([]*patchstore.Call, error) {
	if call != "" {
		c := run.Calls[call]
		if c == nil {
			return nil, fmt.Errorf("call %q in run %s: %w", call, run.ID, patchstore.ErrUnknownCall)
		}
		return []*patchstore.Call{c}, nil
	}
	all := record.OrderedCalls(run.Calls)
	if since == nil {
		return all, nil
	}
	if since.Checkpoint.RunID != run.ID {
		return nil, fmt.Errorf("checkpoint %s is in run %s, not %s: %w", since.Checkpoint.ID, since.Checkpoint.RunID, run.ID, ErrUnknownCheckpoint)
	}
	var out []*patchstore.Call
	for _, c := range all {
		if f := c.Ledger.FinishSeq; f > since.Checkpoint.Seq || (f == 0 && len(c.Patches) > 0) {
			out = append(out, c)
		}
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
