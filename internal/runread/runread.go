// Package runread reads what commands need of a run's calls: through its
// run index (patchstore's paths and ledger index), so that what a command
// costs follows what it looks at, not the run's length, or, for tests,
// from every call's records, to compare the two; it also picks the calls
// a diff shows and checks that the objects the read calls name are there.
// It also picks runs from their newest records (the newest run of a work
// tree, the unfinished runs of one agent's sessions), finds a run's last
// step and last whole-tree checkpoint, and lists the namespace's refs.
//
// Invariants: it reads only; the calls it loads into a run are the ones
// the index names, or all of them when the records cannot tell.
package runread

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// Reader reads a run's calls from one store. It is as safe for concurrent
// use as the store.
type Reader struct {
	Store *patchstore.Store
	// Full reads every call and derives from the records what would
	// otherwise come from the run index: what tests compare the index with.
	Full bool
}

// PathIndex returns the run's path index (see patchstore.PathIndex).
func (r *Reader) PathIndex(run *patchstore.Run) (map[string][]patchstore.Posting, error) {
	if r.Full {
		if err := r.Store.LoadAll(run); err != nil {
			return nil, err
		}
		return patchstore.ScanPostings(run), nil
	}
	return r.Store.PathIndex(run)
}

// The tool names of the calls undo and redo record.
const (
	ToolUndo = "gitguard-undo"
	ToolRedo = "gitguard-redo"
)

// IsUndoTool reports whether tool is undo's or redo's.
func IsUndoTool(tool string) bool { return tool == ToolUndo || tool == ToolRedo }

// StatusCalls reads the calls Status looks at: per path, the newest
// call (not an undo) that patched it, the newest undo that patched it and
// the newest undo that planned it; the calls that saw others change a path;
// the calls during which HEAD moved; and the calls whose entry lists
// skipped paths or view changes. It returns the path index.
func (r *Reader) StatusCalls(run *patchstore.Run) (map[string][]patchstore.Posting, error) {
	idx, err := r.PathIndex(run)
	if err != nil {
		return nil, err
	}
	need := map[record.CallID]bool{}
	for _, list := range idx {
		var agent, undoPatch, undoPlan record.CallID
		for _, p := range list { // oldest first: the last match is the newest
			undo := IsUndoTool(p.Tool)
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
	heads, err := r.Store.HeadMoveCalls(run)
	if err != nil {
		return nil, err
	}
	notes, err := r.Store.NotedCalls(run) // skipped paths, view changes
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
	return idx, r.Store.LoadIndexed(run, ids...)
}

// OpenCalls reads the calls of run that are started and not finished:
// those the checkpoint lists as open, or every call when it does not say.
func (r *Reader) OpenCalls(run *patchstore.Run) error {
	if !run.Exists() {
		return nil
	}
	if !run.Checkpoint.OpenKnown {
		return r.Store.LoadAll(run)
	}
	return r.Store.LoadCalls(run, run.Checkpoint.Open...)
}

// NewestFirst calls visit with a posting of every call of run, newest
// first, until visit returns false (see patchstore.CallsNewestFirst).
func (r *Reader) NewestFirst(run *patchstore.Run, visit func(patchstore.Posting) (bool, error)) error {
	if r.Full {
		if err := r.Store.LoadAll(run); err != nil {
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
	return r.Store.CallsNewestFirst(run, visit)
}

// InEffect reports whether a call is one undo can take back: an agent
// call with patches that no undo took out.
func InEffect(p patchstore.Posting) bool { return p.Patch && !p.Undone && !IsUndoTool(p.Tool) }

// Select picks calls oldest first: one by id, those finished after a
// checkpoint, or all.
func Select(run *patchstore.Run, call record.CallID, since *record.Entry) ([]*patchstore.Call, error) {
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
		return nil, fmt.Errorf("checkpoint %s is in run %s, not %s: %w", since.Checkpoint.ID, since.Checkpoint.RunID, run.ID, patchstore.ErrUnknownCheckpoint)
	}
	var out []*patchstore.Call
	for _, c := range all {
		if f := c.Ledger.FinishSeq; f > since.Checkpoint.Seq || (f == 0 && len(c.Patches) > 0) {
			out = append(out, c)
		}
	}
	return out, nil
}

// VerifyObjects checks that the run's trees and every object the records
// of the calls read name are present.
func VerifyObjects(db *odb.DB, run *patchstore.Run) error {
	cp := run.Checkpoint
	if !db.Has(cp.WorktreeTree) {
		return fmt.Errorf("%w: work tree %s of %s is missing", record.ErrCorrupt, cp.WorktreeTree.Short(), cp.ID)
	}
	if !db.Has(cp.IndexTree) {
		return fmt.Errorf("%w: index tree %s of %s is missing", record.ErrCorrupt, cp.IndexTree.Short(), cp.ID)
	}
	for _, c := range run.Calls {
		for _, p := range c.Patches {
			for _, st := range []record.State{p.Before(), p.After()} {
				if st.Exists() && st.Mode != record.ModeGitlink && !p.Oversize && !db.Has(st.Hash) {
					return fmt.Errorf("%w: blob %s of %s (call %s) is missing", record.ErrCorrupt, st.Hash.Short(), p.Path, c.Ledger.CallID)
				}
			}
			if !p.PatchRef.IsZero() && !db.Has(p.PatchRef) {
				return fmt.Errorf("%w: patch of %s (call %s) is missing", record.ErrCorrupt, p.Path, c.Ledger.CallID)
			}
		}
	}
	return nil
}

// NextSeq is the sequence number of the next checkpoint of tip's run.
func NextSeq(tip *patchstore.Run) int {
	if tip.Exists() {
		return tip.Checkpoint.Seq + 1
	}
	return 1
}

// FindCall finds the runs that hold call: the active run alone when it
// has it, else every run that has it (found, by id; id is the last). It
// reads only the named call's records of each run.
func FindCall(ctx context.Context, store *patchstore.Store, call record.CallID) (id record.RunID, found []string, err error) {
	active, err := store.ActiveRun()
	if err != nil {
		return "", nil, err
	}
	if active != "" && hasCall(ctx, store, active, call) {
		return active, []string{string(active)}, nil
	}
	infos, err := store.ListRuns(ctx)
	if err != nil {
		return "", nil, err
	}
	for _, in := range infos {
		if in.ID != active && hasCall(ctx, store, in.ID, call) {
			id = in.ID
			found = append(found, string(in.ID))
		}
	}
	return id, found, nil
}

// hasCall reads only the named call's records of a run.
func hasCall(ctx context.Context, store *patchstore.Store, run record.RunID, call record.CallID) bool {
	r, err := store.ReadRunCalls(ctx, run, call)
	return err == nil && r.Calls[call] != nil
}

// Summary is one run as a run picker lists it (the root package's
// RunSummary).
type Summary struct {
	ID          record.RunID
	Active      bool // the work tree's active run
	Finished    bool
	Checkpoints int
	// Tip is the run's newest checkpoint commit: it changes whenever the
	// run records anything, so comparing it is a cheap change check.
	Tip    record.Hash
	LastAt time.Time
}

// Summaries lists every run of the repository, most recently active first,
// active being the work tree's active run. It reads one record per run.
func Summaries(ctx context.Context, store *patchstore.Store, active record.RunID) ([]Summary, error) {
	infos, err := store.ListRuns(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(infos))
	for _, i := range infos {
		s := Summary{ID: i.ID, Active: i.ID == active, Finished: i.Finished, Checkpoints: i.Checkpoints, Tip: i.Tip}
		if i.Last != nil {
			s.LastAt = i.Last.CreatedAt
		}
		out = append(out, s)
	}
	return out, nil
}

// Changes diffs a checkpoint's work tree against the previous checkpoint's,
// or against HEAD's tree for a run's first checkpoint.
func Changes(store *patchstore.Store, db *odb.DB, cp *record.Checkpoint) ([]record.Change, error) {
	var prev record.Hash
	if !cp.Prev.IsZero() {
		p, err := store.ReadRecord(cp.Prev)
		if err != nil {
			return nil, err
		}
		prev = p.WorktreeTree
	} else if !cp.Head.Commit.IsZero() {
		c, err := db.ReadCommit(cp.Head.Commit)
		if err != nil {
			return nil, err
		}
		prev = c.Tree
	}
	return db.DiffTrees(prev, cp.WorktreeTree)
}

// Newest lists the newest n calls of run, oldest first, and whether the
// run has older calls.
func (r *Reader) Newest(run *patchstore.Run, n int) ([]record.CallID, bool, error) {
	var ids []record.CallID
	more := false
	err := r.NewestFirst(run, func(p patchstore.Posting) (bool, error) {
		if len(ids) == n {
			more = true
			return false, nil
		}
		ids = append(ids, p.Call)
		return true, nil
	})
	slices.Reverse(ids)
	return ids, more, err
}
