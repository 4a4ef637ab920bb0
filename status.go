package gitguard

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/workspace"
)

// PathStatus is the state of one path the run touched, against the newest
// patch for it.
type PathStatus struct {
	Path     string
	State    conflict.State
	Call     string
	Tool     string
	Before   patchstore.State
	After    patchstore.State
	Current  patchstore.State
	IsDir    bool // a folder stands where the file should be
	Oversize bool
}

// StatusOptions narrow Status.
type StatusOptions struct {
	Call string // only paths this call touched, against its own patch
	// Unrecorded also walks the work tree for changes since the newest
	// checkpoint that no call recorded (costs a snapshot).
	Unrecorded bool
}

// StatusReport is the result of Status.
type StatusReport struct {
	Run        string
	Checkpoint patchstore.Entry
	Paths      []PathStatus
	Unrecorded []workspace.Change
	// HeadMoves are the calls during which HEAD moved (the agent committed).
	HeadMoves []HeadMove
}

// callOrder sorts calls oldest first: by the checkpoint that finished them,
// unfinished ones last, by start.
func callOrder(c *patchstore.Call) (int, int) {
	f := c.Ledger.FinishSeq
	if f == 0 {
		f = math.MaxInt
	}
	return f, c.Ledger.StartSeq
}

// OrderedCalls returns the run's calls oldest first (see callOrder).
func OrderedCalls(run *patchstore.Run) []*patchstore.Call {
	calls := make([]*patchstore.Call, 0, len(run.Calls))
	for _, c := range run.Calls {
		calls = append(calls, c)
	}
	sort.Slice(calls, func(i, j int) bool {
		fi, si := callOrder(calls[i])
		fj, sj := callOrder(calls[j])
		if fi != fj {
			return fi < fj
		}
		if si != sj {
			return si < sj
		}
		return calls[i].Ledger.CallID < calls[j].Ledger.CallID
	})
	return calls
}

// newestPatches returns, per path, the newest patch among calls.
func newestPatches(calls []*patchstore.Call) map[string]*patchstore.FilePatch {
	out := map[string]*patchstore.FilePatch{}
	for _, c := range calls {
		for i := range c.Patches {
			out[c.Patches[i].Path] = &c.Patches[i]
		}
	}
	return out
}

// Status classifies every path the run's calls touched against the newest
// patch for it, hashing only those paths, and optionally lists unrecorded
// changes. It writes nothing but, with Unrecorded, the snapshot's objects.
func (g *Guard) Status(ctx context.Context, runID string, o StatusOptions) (*StatusReport, error) {
	run, err := g.readRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	id := run.ID
	calls := OrderedCalls(run)
	if o.Call != "" {
		c := run.Calls[o.Call]
		if c == nil {
			return nil, fmt.Errorf("call %q in run %s: %w", o.Call, id, patchstore.ErrUnknownCall)
		}
		calls = []*patchstore.Call{c}
	}
	rep := &StatusReport{Run: id, Checkpoint: patchstore.Entry{Commit: run.Commit, Checkpoint: run.Checkpoint},
		HeadMoves: g.headMovesOf(ctx, calls)}
	newest := newestPatches(calls)
	paths := make([]string, 0, len(newest))
	for p := range newest {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fp := newest[p]
		cur, _, err := g.WS.Capture(p, false)
		if err != nil {
			return nil, err
		}
		ps := PathStatus{
			Path: p, Call: fp.ToolCallID, Tool: run.Calls[fp.ToolCallID].Ledger.ToolName,
			Before: fp.Before(), After: fp.After(), Current: state(cur), IsDir: cur.Mode == odb.ModeTree,
			Oversize: fp.Oversize,
		}
		if ps.IsDir {
			ps.Current = patchstore.State{}
		}
		ps.State = conflict.Classify(ps.Before, ps.After, ps.Current)
		if ps.IsDir {
			ps.State = conflict.Conflicted
		}
		rep.Paths = append(rep.Paths, ps)
	}
	if o.Unrecorded {
		snap, err := g.WS.Snapshot(ctx)
		if err != nil {
			return nil, err
		}
		changes, err := workspace.DiffTrees(g.DB, run.Checkpoint.WorktreeTree, snap.Worktree)
		if err != nil {
			return nil, err
		}
		touched := newestPatches(OrderedCalls(run))
		for _, c := range changes {
			if touched[c.Path] == nil {
				rep.Unrecorded = append(rep.Unrecorded, c)
			}
		}
	}
	return rep, nil
}
