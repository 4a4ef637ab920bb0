package gitguard

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/internal/fault"
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/internal/safewrite"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// ErrNothingToUndo is returned when no call has file changes left to undo.
var ErrNothingToUndo = errors.New("nothing to undo")

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
	// same time (see record.FilePatch.SharedWith); without it they are left
	// as they are and reported.
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

func isUndoCall(c *patchstore.Call) bool {
	return c.Ledger.ToolName == ToolUndo || c.Ledger.ToolName == ToolRedo
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
	targets, items, passed, err := g.pickTargets(ctx, run, o, redo)
	if err != nil {
		return nil, err
	}
	res := &UndoResult{Run: id, DryRun: o.DryRun, Passed: passed, Items: items, HeadMoves: headMovesOf(ctx, g, targets)}
	for _, c := range targets {
		res.Undone = append(res.Undone, c.Ledger.CallID)
	}
	if len(targets) == 0 {
		// Nothing could be reverted: what is left is the finding.
		for _, pc := range passed {
			res.Conflicts += len(pc.Left)
		}
	}
	writes := 0
	for _, it := range items {
		if it.Action == ActionConflict || it.Action == ActionUnrecoverable {
			res.Conflicts++
		}
		if it.Action == ActionShared {
			res.Shared++
		}
		if it.Writes() {
			writes++
		}
	}
	if err := g.writer().CheckPlanned(plannedWrites(items)); err != nil {
		return nil, err
	}
	// An undo that would change nothing records nothing: the result says
	// what remains, and the calls stay as they are.
	undoID, err := g.resumableUndo(run, res.Undone, redo)
	if err != nil {
		return nil, err
	}
	if writes == 0 && undoID == "" {
		return res, nil
	}
	if o.DryRun {
		return res, nil
	}

	// The undo's own call: its start records the current state of every
	// planned path, durably, before any file is written.
	paths := make([]string, 0, len(items))
	for _, it := range items {
		paths = append(paths, it.Path)
	}
	if undoID == "" {
		tool, prefix := ToolUndo, "undo"
		if redo {
			tool, prefix = ToolRedo, "redo"
		}
		if undoID, err = g.newCallID(run, prefix); err != nil {
			return nil, err
		}
		opts := CallOptions{CallID: undoID, Tool: tool, Paths: paths, Undoes: res.Undone,
			Input: record.JoinCallIDs(res.Undone, " "), Idempotency: record.Idempotent, ReplayPolicy: record.ReplayAuto,
			ledgerOnly: len(paths) == 0}
		if _, err := g.CallStart(ctx, id, opts); err != nil {
			return nil, fmt.Errorf("record undo start: %w", err)
		}
	}
	res.UndoCall = undoID
	for i := range res.Items {
		it := &res.Items[i]
		if !it.Writes() {
			continue
		}
		// The plan was made from the file as it was; if someone changed it
		// since, writing the plan would lose their edit.
		now, _, err := g.ws.Capture(it.Path, false)
		if err != nil {
			return res, fmt.Errorf("undo %s (undo call %s stays started; run the command again to finish): %w", it.Path, undoID, err)
		}
		if st := now.State(); st != it.Current || (now.Mode == record.ModeTree) {
			if it.Action != ActionConflict {
				res.Conflicts++
			}
			it.Action, it.Reason = ActionConflict, "changed while undo ran; left as it is (run undo again)"
			continue
		}
		if err := g.writer().Write(ctx, it.Path, it.Target, it.Content); err != nil {
			return res, fmt.Errorf("undo %s (undo call %s stays started; run the command again to finish): %w", it.Path, undoID, err)
		}
		it.Written = true
		fault.Point("undo.write")
	}
	res.RemovedDirs = g.removeCreatedDirs(ctx, run, targets, res.Items)
	res.IndexNotes = g.indexNotes(ctx, res.Items)
	// The calls the finish marks: the undone ones and, for a redo, the
	// calls the undone undo had reverted.
	marked := append([]record.CallID(nil), res.Undone...)
	if redo {
		for _, c := range targets {
			marked = append(marked, c.Ledger.Undoes...)
		}
	}
	done, err := g.callFinish(ctx, id, undoID, FinishOptions{Result: fmt.Sprintf("%d path(s) written, %d conflict(s)", countWritten(res.Items), res.Conflicts)},
		marked, func(tip *patchstore.Run) {
			// A call with a path left conflicted is still (partly) in effect:
			// undoing it again retries those paths.
			if leftConflicted(res.Items) == 0 {
				markUndone(tip, undoID, res.Undone, redo)
			}
		})
	if err != nil {
		return res, err
	}
	res.Commit = done.Commit
	return res, nil
}

// leftConflicted counts the paths undo could not revert.
func leftConflicted(items []UndoItem) int {
	n := 0
	for _, it := range items {
		if (it.Action == ActionConflict || it.Action == ActionUnrecoverable || it.Action == ActionShared) && !it.Written {
			n++
		}
	}
	return n
}

func countWritten(items []UndoItem) int {
	n := 0
	for _, it := range items {
		if it.Written {
			n++
		}
	}
	return n
}

// markUndone records in the ledger which calls are no longer in effect.
func markUndone(tip *patchstore.Run, undoID record.CallID, undone []record.CallID, redo bool) {
	for _, id := range undone {
		c := tip.Calls[id]
		if c == nil {
			continue
		}
		c.Touch()
		c.Ledger.UndoneBy = undoID
		if redo {
			// The undone undo's own targets are back in effect.
			for _, t := range c.Ledger.Undoes {
				if tc := tip.Calls[t]; tc != nil && tc.Ledger.UndoneBy == id {
					tc.Touch()
					tc.Ledger.UndoneBy = ""
				}
			}
		}
	}
}

// undoTargets picks the calls to revert, oldest first.
func undoTargets(run *patchstore.Run, o UndoOptions, redo bool) ([]*patchstore.Call, error) {
	inEffect := func(c *patchstore.Call) bool {
		return len(c.Patches) > 0 && c.Ledger.UndoneBy == "" && !isUndoCall(c)
	}
	if redo {
		inEffect = func(c *patchstore.Call) bool {
			return c.Ledger.ToolName == ToolUndo && c.Ledger.UndoneBy == "" && c.Ledger.Status.Finished() && len(c.Patches) > 0
		}
	}
	all := orderedCalls(run.Calls)
	var out []*patchstore.Call
	switch {
	case o.Call != "":
		c := run.Calls[o.Call]
		if c == nil {
			return nil, fmt.Errorf("call %q in run %s: %w", o.Call, run.ID, patchstore.ErrUnknownCall)
		}
		if redo && c.Ledger.ToolName != ToolUndo {
			return nil, fmt.Errorf("call %s is not an undo; redo takes an undo call: %w", o.Call, ErrUsage)
		}
		out = []*patchstore.Call{c}
	case o.To != nil || o.WholeRun:
		for _, c := range all {
			if inEffect(c) && (o.To == nil || c.Ledger.FinishSeq > o.To.Checkpoint.Seq || c.Ledger.FinishSeq == 0) {
				out = append(out, c)
			}
		}
	default:
		for i := len(all) - 1; i >= 0; i-- {
			if inEffect(all[i]) {
				out = []*patchstore.Call{all[i]}
				break
			}
		}
	}
	if len(out) == 0 {
		what := "no agent call with file changes is in effect"
		if redo {
			what = "no undo that changed a file is in effect"
		}
		return nil, fmt.Errorf("%w: %s", ErrNothingToUndo, what)
	}
	return out, nil
}

// loadTargetCandidates reads the calls undoTargets may choose among: the
// named call; for plain redo the newest finished undo still in effect; for
// --to the calls finished after the checkpoint (newest first, from the run
// index, so the cost follows what is undone, not the run's length); for
// the whole run every call.
func (g *Guard) loadTargetCandidates(run *patchstore.Run, o UndoOptions, redo bool) error {
	switch {
	case o.Call != "":
		return g.store.LoadCalls(run, o.Call)
	case o.WholeRun:
		return g.store.LoadAll(run)
	}
	candidate := func(p patchstore.Posting) bool {
		if redo {
			return p.Patch && !p.Undone && p.Tool == ToolUndo
		}
		return runread.InEffect(p)
	}
	return g.reader().NewestFirst(run, func(p patchstore.Posting) (bool, error) {
		if o.To != nil && p.Finish != 0 && p.Finish <= o.To.Checkpoint.Seq {
			return false, nil
		}
		if !candidate(p) {
			return true, nil
		}
		if err := g.store.LoadIndexed(run, p.Call); err != nil {
			return false, err
		}
		// Plain redo stops at the newest undo it can take back.
		return o.To != nil || !run.Calls[p.Call].Ledger.Status.Finished(), nil
	})
}

// pickTargets chooses the calls to revert and plans their paths. Plain undo
// (no call, checkpoint or whole run named) takes the newest call in effect
// that still has something it can revert, passing over the calls whose
// paths all conflict with later edits, so that a repeated undo moves on
// instead of trying the same call again.
func (g *Guard) pickTargets(ctx context.Context, run *patchstore.Run, o UndoOptions, redo bool) ([]*patchstore.Call, []UndoItem, []PassedCall, error) {
	if redo || o.Call != "" || o.To != nil || o.WholeRun {
		if err := g.loadTargetCandidates(run, o, redo); err != nil {
			return nil, nil, nil, err
		}
		targets, err := undoTargets(run, o, redo)
		if err != nil {
			return nil, nil, nil, err
		}
		items, err := planCalls(ctx, g, targets, o)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(items) == 0 && !redo {
			return nil, nil, nil, fmt.Errorf("%w: the selected calls changed no path matching %s", ErrNothingToUndo, strings.Join(o.Globs, ", "))
		}
		return targets, items, nil, nil
	}
	if err := g.reader().OpenCalls(run); err != nil {
		return nil, nil, nil, err
	}
	all := orderedCalls(run.Calls)
	// An undo killed midway is finished first: running undo again is how
	// it completes (its start recorded what redo restores).
	for i := len(all) - 1; i >= 0; i-- {
		u := all[i]
		if u.Ledger.ToolName != ToolUndo || u.Ledger.Status != record.StatusStarted {
			continue
		}
		if err := g.store.LoadCalls(run, u.Ledger.Undoes...); err != nil {
			return nil, nil, nil, err
		}
		var targets []*patchstore.Call
		for _, id := range u.Ledger.Undoes {
			if c := run.Calls[id]; c != nil {
				targets = append(targets, c)
			}
		}
		if len(targets) > 0 {
			items, err := planCalls(ctx, g, targets, o)
			return targets, items, nil, err
		}
	}
	var (
		passed  []PassedCall
		picked  *patchstore.Call
		planned []UndoItem
	)
	err := g.reader().NewestFirst(run, func(p patchstore.Posting) (bool, error) {
		if !runread.InEffect(p) {
			return true, nil
		}
		if err := g.store.LoadIndexed(run, p.Call); err != nil {
			return false, err
		}
		c := run.Calls[p.Call]
		if c == nil || len(c.Patches) == 0 || c.Ledger.UndoneBy != "" || isUndoCall(c) {
			return true, nil
		}
		items, err := planCalls(ctx, g, []*patchstore.Call{c}, o)
		if err != nil {
			return false, err
		}
		for _, it := range items {
			if it.Writes() {
				picked, planned = c, items
				return false, nil
			}
		}
		pc := PassedCall{Call: c.Ledger.CallID}
		for _, it := range items {
			if it.Action == ActionConflict || it.Action == ActionUnrecoverable || it.Action == ActionShared {
				pc.Left = append(pc.Left, it)
			}
		}
		if len(pc.Left) > 0 {
			passed = append(passed, pc)
		}
		return true, nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	if picked != nil {
		return []*patchstore.Call{picked}, planned, passed, nil
	}
	if len(passed) > 0 {
		// Nothing can be reverted, and something is left: say what.
		return nil, nil, passed, nil
	}
	return nil, nil, nil, fmt.Errorf("%w: no agent call with file changes is in effect", ErrNothingToUndo)
}

// PassedCall is a call plain undo passed over: every path it could touch
// conflicts with later edits (or was recorded by hash only).
type PassedCall struct {
	Call record.CallID
	Left []UndoItem
}

// resumableUndo finds an undo call that started on the same calls and was
// interrupted: running undo again finishes it, so its before states (the
// state before the first attempt) are what redo restores.
func (g *Guard) resumableUndo(run *patchstore.Run, targets []record.CallID, redo bool) (record.CallID, error) {
	if err := g.reader().OpenCalls(run); err != nil {
		return "", err
	}
	want := record.JoinCallIDs(targets, "\x00")
	tool := ToolUndo
	if redo {
		tool = ToolRedo
	}
	for _, c := range orderedCalls(run.Calls) {
		if c.Ledger.ToolName == tool && c.Ledger.Status == record.StatusStarted &&
			record.JoinCallIDs(c.Ledger.Undoes, "\x00") == want {
			return c.Ledger.CallID, nil
		}
	}
	return "", nil
}

func (g *Guard) newCallID(run *patchstore.Run, prefix string) (record.CallID, error) {
	n := 1
	if run.Exists() {
		n = run.Checkpoint.Seq + 1
	}
	for {
		id := record.CallID(fmt.Sprintf("%s-%03d", prefix, n))
		has, err := g.store.HasCall(run, id)
		if err != nil || !has {
			return id, err
		}
		n++
	}
}

// planCalls computes, per path, what undoing the targets' patches gives.
func planCalls[C recorded](ctx context.Context, g *Guard, targets []C, o UndoOptions) ([]UndoItem, error) {
	byPath, paths := patchesByPath(targets, o.Globs)
	items := make([]UndoItem, 0, len(paths))
	for _, p := range paths {
		it, err := g.planPath(ctx, p, byPath[p], o.Markers)
		if err != nil {
			return nil, err
		}
		if !o.Force {
			leaveShared(&it, byPath[p])
		}
		items = append(items, it)
	}
	return items, nil
}

// planPath plans the undo of one path's patches against its content now.
func (g *Guard) planPath(ctx context.Context, path string, patches []*record.FilePatch, markers bool) (UndoItem, error) {
	if pl, refused := refusedHere(path, patches); refused {
		return UndoItem{Plan: pl}, nil
	}
	curFS, over, err := g.ws.Capture(path, false)
	if err != nil {
		return UndoItem{Plan: record.Plan{Path: path}}, err
	}
	// Content over the size limit is not read: nothing could merge it.
	cur := conflict.Current{State: curFS.State(), IsDir: curFS.Mode == record.ModeTree, Oversize: over}
	if cur.State.Exists() && !cur.IsDir && !over && cur.State.Mode != record.ModeGitlink {
		// The current content in the form the records use (converted, for
		// paths git converts), so merges compare like with like.
		stored, _, err := g.ws.Capture(path, true)
		if err != nil {
			return UndoItem{Plan: record.Plan{Path: path}}, err
		}
		if cur.Content, err = g.db.ReadAs(stored.Hash, odb.TypeBlob); err != nil {
			return UndoItem{Plan: record.Plan{Path: path}}, fmt.Errorf("read %s: %w", path, err)
		}
	}
	pl, err := conflict.PlanPath(path, patches, cur, markers, g.planSources(ctx))
	return UndoItem{Plan: pl}, err
}

// planSources gives undo plans the object database and git merge-file.
func (g *Guard) planSources(ctx context.Context) conflict.Sources {
	return conflict.Sources{
		Load: func(h record.Hash) ([]byte, error) { return g.db.ReadAs(h, odb.TypeBlob) },
		Has:  g.db.Has,
		Merge: func(cur, base, other []byte, labels [3]string) ([]byte, int, error) {
			return git.MergeFile(ctx, filepath.Join(g.ws.StateDir(), "tmp"), cur, base, other, labels)
		},
	}
}

// ErrUnsafeLink is returned (wrapped with record.ErrCorrupt) when undo or
// redo would create a symlink that points outside the work tree or into a
// .git folder, or write a file through a symlink it creates. Nothing has
// been written when it is returned from planning.
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
