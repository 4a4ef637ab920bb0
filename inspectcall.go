package gitguard

import (
	"context"
	"fmt"

	"github.com/gitguard/gitguard/internal/filepatch"
	"github.com/gitguard/gitguard/internal/pathstatus"
	"github.com/gitguard/gitguard/internal/undoplan"
	"github.com/gitguard/gitguard/record"
)

// InspectOptions tune InspectCall.
type InspectOptions struct {
	// Plan also computes what undoing this call alone would do: the items
	// Undo returns for UndoOptions{Call: id, DryRun: true, Markers: Markers}.
	Plan    bool
	Markers bool
}

// CallInspection describes one call for an interactive view.
type CallInspection struct {
	Call    *record.Call
	Patches []record.CallPatch // sorted by path
	Plan    []UndoItem         // with InspectOptions.Plan
	Added   int                // over all paths
	Removed int                // over all paths
}

// InspectCall describes call c, as Ledger returned it: each path's state
// against the call's own patch, the patch text and its line counts and,
// with o.Plan, the undo plan of this call alone. It reads only c's patch
// blobs and the files c touched, so its cost does not grow with the length
// of the run. It writes nothing but merge scratch files under the state
// folder (as Undo with DryRun does). It returns record.ErrCorrupt when
// a patch blob is missing.
func (g *Guard) InspectCall(ctx context.Context, c *record.Call, o InspectOptions) (*CallInspection, error) {
	in := &CallInspection{Call: c}
	patches, paths, err := (&pathstatus.Classifier{DB: g.db, WS: g.ws}).Call(c)
	if err != nil {
		return nil, err
	}
	in.Patches = patches
	for _, cp := range patches {
		in.Added += cp.Added
		in.Removed += cp.Removed
	}
	if o.Plan && len(paths) > 0 {
		plans, err := undoplan.Calls(ctx, g.planner(), []*record.Call{c}, undoplan.Selection{Call: c.Ledger.CallID, Markers: o.Markers})
		if err != nil {
			return nil, fmt.Errorf("plan undo of %s: %w", c.Ledger.CallID, err)
		}
		items := undoItems(plans)
		in.Plan = items
	}
	return in, nil
}

// CountPatchLines counts the added and removed lines of a git-style patch,
// reading only hunk bodies (so "+++" and "---" headers are not counted).
func CountPatchLines(text []byte) (added, removed int) { return filepatch.CountLines(text) }
