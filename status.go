package gitguard

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// PathStatus is the state of one path the run touched, against the newest
// patch for it.
type PathStatus struct {
	Path     string
	State    conflict.State
	Call     record.CallID
	Tool     string
	Before   record.State
	After    record.State
	Current  record.State
	IsDir    bool // a folder stands where the file should be
	Oversize bool
	// Reason says why the path is Unrecoverable, or cannot be looked at
	// on this system.
	Reason string
	// UndoneBy is the undo that took Call's change out (State is then
	// reapplyable, or merged when that undo kept someone else's edits).
	UndoneBy record.CallID
	// LastUndo is the newest undo that touched the path, when newer than
	// Call: with UndoneBy empty, the undo that left it conflicted.
	LastUndo record.CallID
	// SharedWith names the calls of other runs that ran at the same time
	// as Call and may equally have made its change: undo leaves the path
	// alone unless forced.
	SharedWith []record.CallRef
	// Uncertain is set when Call is uncertain: its process died and the
	// change was attributed to it from what changed while it may have run.
	Uncertain bool
}

// StatusOptions narrow Status.
type StatusOptions struct {
	Call record.CallID // only paths this call touched, against its own patch
	// Unrecorded also walks the work tree for changes since the newest
	// checkpoint that no call recorded (costs a snapshot).
	Unrecorded bool
}

// StatusReport is the result of Status.
type StatusReport struct {
	Run        record.RunID
	Checkpoint patchstore.Entry
	Paths      []PathStatus
	Unrecorded []record.Change
	// Others are the changes the run's shell calls saw made meanwhile by
	// calls of other runs (OwnedBy names each): not this run's to undo.
	Others []record.FilePatch
	// OpenElsewhere are the calls of other runs of this work tree open right
	// now: an undo may race what they write.
	OpenElsewhere []record.CallRef
	// HeadMoves are the calls during which HEAD moved (the agent committed).
	HeadMoves []HeadMove
	// Git is the merge, rebase or other operation in progress and the
	// paths in conflict; nil when there is none.
	Git *GitOperation
	// Skipped are the paths the calls could not record (see SkippedPath).
	Skipped []SkippedPath
	// ViewChanges are the calls that changed what gitguard sees (ignore
	// rules, attributes, filters, index bits): the run's snapshots keep
	// the view it started with.
	ViewChanges []ViewChange
	// MaxFileSize is the size limit above which files are recorded by
	// hash only.
	MaxFileSize int64
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

// newerCall reports whether a finished after b.
func newerCall(a, b *patchstore.Call) bool {
	fa, sa := callOrder(a)
	fb, sb := callOrder(b)
	return fa > fb || (fa == fb && sa > sb)
}

// newestPatches returns, per path, the newest patch among calls.
func newestPatches(calls []*patchstore.Call) map[string]*record.FilePatch {
	out := map[string]*record.FilePatch{}
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
func (g *Guard) Status(ctx context.Context, runID record.RunID, o StatusOptions) (*StatusReport, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	run, err := g.readRunHead(ctx, runID)
	if err != nil {
		return nil, err
	}
	return g.status(ctx, run, o)
}

// status is Status on a run read without (or with some of) its calls: it
// reads the calls it needs through the run index.
func (g *Guard) status(ctx context.Context, run *patchstore.Run, o StatusOptions) (*StatusReport, error) {
	id := run.ID
	var calls []*patchstore.Call
	var touched map[string][]patchstore.Posting
	if o.Call != "" {
		if err := g.store.LoadCalls(run, o.Call); err != nil {
			return nil, err
		}
		c := run.Calls[o.Call]
		if c == nil {
			return nil, fmt.Errorf("call %q in run %s: %w", o.Call, id, patchstore.ErrUnknownCall)
		}
		calls = []*patchstore.Call{c}
	} else {
		var err error
		if touched, err = g.loadStatusCalls(run); err != nil {
			return nil, err
		}
		calls = OrderedCalls(run)
	}
	rep := &StatusReport{Run: id, Checkpoint: patchstore.Entry{Commit: run.Commit, Checkpoint: run.Checkpoint},
		HeadMoves: g.headMovesOf(ctx, calls)}
	var agent, undos []*patchstore.Call
	for _, c := range calls {
		if isUndoCall(c) && o.Call == "" {
			undos = append(undos, c)
		} else {
			agent = append(agent, c)
		}
	}
	newest, undoPatch := newestPatches(agent), newestPatches(undos)
	// The undo that last planned each path, whether or not it wrote it.
	lastUndo := map[string]*patchstore.Call{}
	for _, u := range undos {
		for _, p := range u.Ledger.Paths {
			lastUndo[p] = u
		}
	}
	paths := make([]string, 0, len(newest))
	for p := range newest {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fp := newest[p]
		if ps, ok := g.unreadableHere(run, fp); ok {
			rep.Paths = append(rep.Paths, ps)
			continue
		}
		cur, _, err := g.ws.Capture(p, false)
		if err != nil {
			return nil, err
		}
		now := conflict.Current{State: state(cur), IsDir: cur.Mode == record.ModeTree}
		if now.IsDir {
			now.State = record.State{}
		}
		c := run.Calls[fp.ToolCallID]
		ps := PathStatus{
			Path: p, Call: fp.ToolCallID, Tool: c.Ledger.ToolName,
			Before: fp.Before(), After: fp.After(), Current: now.State, IsDir: now.IsDir,
			Oversize: fp.Oversize, State: now.Class(fp.Before(), fp.After()), UndoneBy: c.Ledger.UndoneBy,
			SharedWith: fp.SharedWith, Uncertain: c.Ledger.Status == record.StatusUncertain,
		}
		if u := lastUndo[p]; u != nil && newerCall(u, c) {
			ps.LastUndo = u.Ledger.CallID
			// The undo that took the agent's change out kept someone
			// else's edits, and the file is as it left it.
			if up := undoPatch[p]; up != nil && up.ToolCallID == ps.LastUndo && ps.UndoneBy != "" &&
				ps.State == conflict.Conflicted && !now.IsDir && up.After() == now.State {
				ps.State = conflict.Merged
			}
		}
		g.markUnrecoverable(&ps, fp)
		rep.Paths = append(rep.Paths, ps)
	}
	rep.Skipped, rep.MaxFileSize = skippedPaths(agent), g.ws.MaxFileSize()
	rep.ViewChanges = viewChangesOf(agent)
	for _, c := range agent {
		rep.Others = append(rep.Others, c.Others...)
	}
	var err error
	if rep.OpenElsewhere, err = g.OpenElsewhere(ctx, id); err != nil {
		return nil, err
	}
	if !o.Unrecorded {
		// Without a snapshot: cheap, from git's marker files.
		if rep.Git, err = g.markedOperation(ctx); err != nil {
			return nil, err
		}
	} else {
		snap, err := g.ws.Snapshot(ctx)
		if err != nil {
			return nil, err
		}
		rep.Git = g.snapshotOperation(snap)
		changes, err := g.db.DiffTrees(run.Checkpoint.WorktreeTree, snap.Worktree)
		if err != nil {
			return nil, err
		}
		if touched == nil {
			if touched, err = g.pathIndex(run); err != nil {
				return nil, err
			}
		}
		for _, c := range changes {
			if !slices.ContainsFunc(touched[c.Path], func(p patchstore.Posting) bool { return p.Patch }) {
				rep.Unrecorded = append(rep.Unrecorded, c)
			}
		}
	}
	return rep, nil
}
