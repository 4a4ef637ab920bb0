package gitguard

import (
	"context"
	"errors"
	"fmt"

	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/internal/safewrite"
	"github.com/gitguard/gitguard/internal/undoplan"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// ErrNothingToUndo is returned when no call has file changes left to undo.
var ErrNothingToUndo = undoplan.ErrNothingToUndo

// Tool names of the calls undo and redo record.
const (
	ToolUndo = runread.ToolUndo
	ToolRedo = runread.ToolRedo
)

// The actions of an undo plan.
const (
	ActionRestore       = record.ActionRestore       // write the before content and mode
	ActionDelete        = record.ActionDelete        // the agent created it
	ActionRecreate      = record.ActionRecreate      // the agent deleted it
	ActionMerge         = record.ActionMerge         // take the agent's hunks out, keep the user's
	ActionConflict      = record.ActionConflict      // overlapping edits: left as it is (or markers)
	ActionSkip          = record.ActionSkip          // already as before
	ActionUnrecoverable = record.ActionUnrecoverable // before content was recorded by hash only
	ActionShared        = record.ActionShared        // another session's call may have made it: left alone
	ActionUncertain     = record.ActionUncertain     // only guessed to be the agent's change: left alone
)

// UndoOptions choose what to undo. With none of Call, To and WholeRun, the
// newest call with file changes that is still in effect is undone.
type UndoOptions struct {
	Call     record.CallID
	To       *record.Entry // revert every patch recorded after this checkpoint
	WholeRun bool
	Globs    []string // only paths matching these
	DryRun   bool
	// Markers writes git-style conflict markers where hunks overlap instead
	// of leaving the file as it is.
	Markers bool
	// Force reverts paths shared with a call of another run that ran at the
	// same time (see record.FilePatch.SharedWith), and changes only guessed
	// to be a killed call's (record.FilePatch.Guess); without it they are
	// left as they are and reported.
	Force bool
}

// UndoItem is one path of an undo plan, and whether undo wrote it.
type UndoItem struct {
	record.Plan
	Written bool // the file was changed (conflict markers included)
}

// UndoResult reports an undo.
type UndoResult struct {
	Run       record.RunID
	Undone    []record.CallID // calls reverted
	UndoCall  record.CallID   // the undo's own call in the ledger (redo undoes it); see DryRun
	Commit    record.Hash     // the checkpoint that finished the undo
	Items     []UndoItem
	Conflicts int // paths left conflicted (or written with markers)
	Shared    int // paths left alone: another run's call may have made them
	Uncertain int // paths left alone: only guessed to be the agent's change
	DryRun    bool
	// UndoCall is empty when nothing was recorded: a dry run, or a plan
	// that writes nothing (Items say what remains).
	// Passed lists, newest first, the calls a plain undo passed over
	// because nothing of theirs could be reverted.
	Passed []PassedCall
	// RemovedDirs are the folders the agent created that were left empty
	// by the undo and removed.
	RemovedDirs []string
	// IndexNotes are the restored paths the index still disagrees with.
	IndexNotes []IndexNote
	// HeadMoves are the undone calls during which HEAD moved: undo reverts
	// their file changes in the work tree and leaves the commits alone.
	HeadMoves []HeadMove
}

// Undo reverts the agent's patches, newest first, keeping every edit made
// by someone else: applied paths get their before content back, conflicted
// ones a three-way merge (base = agent's after, ours = current, theirs =
// agent's before) through git merge-file, and overlapping hunks leave the
// file untouched. Before writing it records the current state of every
// planned path as the start of an undo call, so Redo can put it back. An
// interrupted undo is completed by running it again.
func (g *Guard) Undo(ctx context.Context, runID record.RunID, o UndoOptions) (*UndoResult, error) {
	return g.undo(ctx, runID, o, false)
}

// Redo undoes the newest undo that is still in effect (or undo call
// o.Call), restoring exactly what that undo changed.
func (g *Guard) Redo(ctx context.Context, runID record.RunID, o UndoOptions) (*UndoResult, error) {
	return g.undo(ctx, runID, o, true)
}

func (g *Guard) undo(ctx context.Context, runID record.RunID, o UndoOptions, redo bool) (*UndoResult, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	validate := o.Validate
	if redo {
		validate = o.ValidateRedo
	}
	if err := validate(); err != nil {
		return nil, err
	}
	run, err := g.readRunHead(ctx, runID)
	if err != nil {
		return nil, err
	}
	id := run.ID
	targets, plans, left, err := g.planner().Pick(ctx, run, o.selection(), redo)
	if errors.Is(err, undoplan.ErrNotAnUndo) {
		return nil, usageErr(err)
	}
	if err != nil {
		return nil, err
	}
	items := undoItems(plans)
	var passed []PassedCall
	for _, pc := range left {
		passed = append(passed, PassedCall{Call: pc.Call, Left: undoItems(pc.Left)})
	}
	res := &UndoResult{Run: id, DryRun: o.DryRun, Passed: passed, Items: items, HeadMoves: headMovesOf(ctx, g, targets)}
	for _, c := range targets {
		res.Undone = append(res.Undone, c.Ledger.CallID)
	}
	var finding []undoplan.Passed
	if len(targets) == 0 {
		finding = left // nothing could be reverted: what is left is the finding
	}
	t := undoplan.Count(plans, finding)
	res.Conflicts, res.Shared, res.Uncertain = t.Conflicts, t.Shared, t.Uncertain
	if err := g.writer().CheckPlanned(plannedWrites(items)); err != nil {
		return nil, err
	}
	// An undo that would change nothing records nothing: the result says
	// what remains, and the calls stay as they are.
	undoID, err := g.planner().Resumable(run, res.Undone, redo)
	if err != nil {
		return nil, err
	}
	if t.Writes == 0 && undoID == "" {
		return res, nil
	}
	if o.DryRun {
		return res, nil
	}

	// The undo's own call: its start records the current state of every
	// planned path, durably, before any file is written.
	paths := undoplan.Paths(plans)
	if undoID == "" {
		tool, prefix := undoplan.CallTool(redo)
		if undoID, err = g.planner().NewCallID(run, prefix); err != nil {
			return nil, err
		}
		opts := CallOptions{CallID: undoID, Tool: tool, Paths: paths, Undoes: res.Undone,
			Input: record.JoinCallIDs(res.Undone, " "), Idempotency: record.Idempotent, ReplayPolicy: record.ReplayAuto,
			ledgerOnly: len(paths) == 0, Checkpoint: CheckpointOptions{keepFinished: true}}
		if _, err := g.CallStart(ctx, id, opts); err != nil {
			return nil, fmt.Errorf("record undo start: %w", err)
		}
	}
	res.UndoCall = undoID
	written, conflicts, err := g.writer().Apply(ctx, plans, undoplan.Order(plans), undoID)
	for i := range res.Items {
		res.Items[i].Plan, res.Items[i].Written = plans[i], written[i]
	}
	res.Conflicts += conflicts
	if err != nil {
		return res, err
	}
	g.tidyAfter(ctx, run, targets, res)
	// The calls the finish marks: the undone ones and, for a redo, the
	// calls the undone undo had reverted.
	marked := undoplan.Marked(res.Undone, targets, redo)
	done, err := g.callFinish(ctx, id, undoID, FinishOptions{Result: fmt.Sprintf("%d path(s) written, %d conflict(s)", countWritten(res.Items), res.Conflicts),
		Checkpoint: CheckpointOptions{keepFinished: true}},
		marked, func(tip *patchstore.Run) {
			// A call with a path left conflicted is still (partly) in effect:
			// undoing it again retries those paths.
			if undoplan.Left(plans, written) == 0 {
				undoplan.MarkUndone(tip, undoID, res.Undone, redo)
			}
		})
	if err != nil {
		return res, err
	}
	res.Commit = done.Commit
	return res, nil
}

// countWritten counts the paths undo wrote.
func countWritten(items []UndoItem) int {
	n := 0
	for _, it := range items {
		if it.Written {
			n++
		}
	}
	return n
}

// PassedCall is a call plain undo passed over: every path it could touch
// conflicts with later edits (or was recorded by hash only).
type PassedCall struct {
	Call record.CallID
	Left []UndoItem
}

// planner plans undos on this work tree.
func (g *Guard) planner() *undoplan.Planner {
	return &undoplan.Planner{DB: g.db, WS: g.ws, Store: g.store, Reader: g.reader()}
}

// selection is what o selects for the planner.
func (o UndoOptions) selection() undoplan.Selection {
	return undoplan.Selection{Call: o.Call, To: o.To, WholeRun: o.WholeRun, Globs: o.Globs, Markers: o.Markers, Force: o.Force}
}

// undoItems are the items of the plans, none written yet.
func undoItems(plans []record.Plan) []UndoItem {
	if plans == nil {
		return nil
	}
	items := make([]UndoItem, len(plans))
	for i, pl := range plans {
		items[i] = UndoItem{Plan: pl}
	}
	return items
}

// ErrUnsafeLink is returned (wrapped with record.ErrCorrupt) when undo or
// redo would write a path beneath a symlink (one it creates, or one on
// disk it leaves in place). A link's target is data: undo restores links
// whatever they point at, as git checks them out. Nothing has been written
// when it is returned from planning.
var ErrUnsafeLink = safewrite.ErrUnsafeLink

// writer writes recorded states into the work tree, refusing unsafe links.
func (g *Guard) writer() *safewrite.Writer {
	return &safewrite.Writer{DB: g.db, WS: g.ws, WorkTree: g.repo.WorkTree}
}

// plannedWrites are the writes of a plan, for the link checks.
func plannedWrites(items []UndoItem) []safewrite.Planned {
	var out []safewrite.Planned
	for _, it := range items {
		if it.Writes() {
			out = append(out, safewrite.Planned{Path: it.Path, Target: it.Target, Content: it.Content})
		}
	}
	return out
}
