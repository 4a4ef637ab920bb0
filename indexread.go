package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// readRunHead reads run id (the active run when empty) without the records
// of any call: commands then read the calls they need through the run
// index, so that what they cost does not grow with the run's length.
func (g *Guard) readRunHead(ctx context.Context, id record.RunID) (*patchstore.Run, error) {
	id, err := g.ResolveRun(ctx, id, false)
	if err != nil {
		return nil, err
	}
	var run *patchstore.Run
	if fullReads {
		run, err = g.store.ReadRun(ctx, id)
	} else {
		run, err = g.store.ReadRunCalls(ctx, id)
	}
	if err != nil {
		return nil, err
	}
	return run, g.useRunSettings(ctx, run.Checkpoint) // status and undo look as the run does
}

// fullReads makes commands read every call and derive from the records
// what they would otherwise read from the run index: what tests compare
// the index with.
var fullReads bool

// pathIndex returns the run's path index (see patchstore.PathIndex).
func (g *Guard) pathIndex(run *patchstore.Run) (map[string][]patchstore.Posting, error) {
	if fullReads {
		if err := g.store.LoadAll(run); err != nil {
			return nil, err
		}
		return patchstore.ScanPostings(run), nil
	}
	return g.store.PathIndex(run)
}

func isUndoTool(tool string) bool { return tool == ToolUndo || tool == ToolRedo }

// loadStatusCalls reads the calls Status looks at: per path, the newest
// call (not an undo) that patched it, the newest undo that patched it and
// the newest undo that planned it; the calls that saw others change a path;
// and the calls during which HEAD moved. It returns the path index.
func (g *Guard) loadStatusCalls(run *patchstore.Run) (map[string][]patchstore.Posting, error) {
	idx, err := g.pathIndex(run)
	if err != nil {
		return nil, err
	}
	need := map[record.CallID]bool{}
	for _, list := range idx {
		var agent, undoPatch, undoPlan record.CallID
		for _, p := range list { // oldest first: the last match is the newest
			undo := isUndoTool(p.Tool)
			switch {
			case p.Patch && !undo:
				agent = p.Call
			case p.Patch && undo:
				undoPatch = p.Call
			}
			if p.Listed && undo {
				undoPlan = p.Call
			}
			if p.Other && !undo {
				need[p.Call] = true
			}
		}
		for _, id := range []record.CallID{agent, undoPatch, undoPlan} {
			if id != "" {
				need[id] = true
			}
		}
	}
	heads, err := g.store.HeadMoveCalls(run)
	if err != nil {
		return nil, err
	}
	notes, err := g.store.NotedCalls(run) // skipped paths, view changes
	if err != nil {
		return nil, err
	}
	for _, id := range append(heads, notes...) {
		need[id] = true
	}
	ids := make([]record.CallID, 0, len(need))
	for id := range need {
		ids = append(ids, id)
	}
	return idx, g.store.LoadIndexed(run, ids...)
}

// loadOpenCalls reads the calls of run that are started and not finished:
// those the checkpoint lists as open, or every call when it does not say.
func (g *Guard) loadOpenCalls(run *patchstore.Run) error {
	if !run.Exists() {
		return nil
	}
	if !run.Checkpoint.OpenKnown {
		return g.store.LoadAll(run)
	}
	return g.store.LoadCalls(run, run.Checkpoint.Open...)
}

// callsNewestFirst calls visit with a posting of every call of run, newest
// first, until visit returns false (see patchstore.CallsNewestFirst).
func (g *Guard) callsNewestFirst(run *patchstore.Run, visit func(patchstore.Posting) (bool, error)) error {
	if fullReads {
		if err := g.store.LoadAll(run); err != nil {
			return err
		}
		order := patchstore.ScanOrder(run)
		for i := len(order) - 1; i >= 0; i-- {
			if more, err := visit(order[i]); err != nil || !more {
				return err
			}
		}
		return nil
	}
	return g.store.CallsNewestFirst(run, visit)
}

// inEffect reports whether a call is one undo can take back: an agent
// call with patches that no undo took out.
func inEffect(p patchstore.Posting) bool { return p.Patch && !p.Undone && !isUndoTool(p.Tool) }
