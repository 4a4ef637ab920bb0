package gitguard

import (
	"context"
	"fmt"

	"github.com/gitguard/gitguard/internal/drift"
	"github.com/gitguard/gitguard/internal/pathstatus"
	"github.com/gitguard/gitguard/internal/undoplan"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

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
	Checkpoint record.Entry
	Paths      []record.PathStatus
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
	Skipped []record.SkippedPath
	// ViewChanges are the calls that changed what gitguard sees (ignore
	// rules, attributes, filters, index bits): the run's snapshots keep
	// the view it started with.
	ViewChanges []ViewChange
	// MaxFileSize is the size limit above which files are recorded by
	// hash only.
	MaxFileSize int64
}

// OrderedCalls returns the run's calls oldest first: by the checkpoint that
// finished them, unfinished ones last, by start.
func OrderedCalls(run *Run) []*record.Call { return record.OrderedCalls(run.Calls) }

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
		if touched, err = g.reader().StatusCalls(run); err != nil {
			return nil, err
		}
		calls = record.OrderedCalls(run.Calls)
	}
	rep := &StatusReport{Run: id, Checkpoint: record.Entry{Commit: run.Commit, Checkpoint: run.Checkpoint},
		HeadMoves: headMovesOf(ctx, g, calls)}
	agent, undos := calls, []*patchstore.Call(nil)
	if o.Call == "" {
		agent, undos = undoplan.SplitUndos(calls)
	}
	var err error
	if rep.Paths, err = (&pathstatus.Classifier{DB: g.db, WS: g.ws}).Paths(ctx, run, agent, undos); err != nil {
		return nil, err
	}
	rep.MaxFileSize = g.ws.MaxFileSize()
	rep.Skipped = append([]record.SkippedPath{}, pathstatus.Skipped(agent)...) // [] in JSON, not null
	rep.ViewChanges = viewChangesOf(agent)
	for _, c := range agent {
		rep.Others = append(rep.Others, c.Others...)
	}
	if rep.OpenElsewhere, err = g.OpenElsewhere(ctx, id); err != nil {
		return nil, err
	}
	if !o.Unrecorded {
		// Without a snapshot: cheap, from git's marker files.
		if rep.Git, err = g.markedOperation(ctx); err != nil {
			return nil, err
		}
	} else {
		unrecorded, op, err := (&drift.Checker{DB: g.db, WS: g.ws}).UnrecordedNow(ctx, run, touched, g.reader())
		if err != nil {
			return nil, err
		}
		rep.Unrecorded, rep.Git = unrecorded, (*GitOperation)(op)
	}
	return rep, nil
}
