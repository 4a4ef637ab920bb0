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
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/workspace"
)

// ErrNothingToUndo is returned when no call has file changes left to undo.
var ErrNothingToUndo = errors.New("nothing to undo")

// Tool names of the calls undo and redo record.
const (
	ToolUndo = "gitguard-undo"
	ToolRedo = "gitguard-redo"
)

// UndoAction is what undo does to one path.
type UndoAction string

// The actions of an undo plan.
const (
	ActionRestore       UndoAction = "restore"       // write the before content and mode
	ActionDelete        UndoAction = "delete"        // the agent created it
	ActionRecreate      UndoAction = "recreate"      // the agent deleted it
	ActionMerge         UndoAction = "merge"         // take the agent's hunks out, keep the user's
	ActionConflict      UndoAction = "conflict"      // overlapping edits: left as it is (or markers)
	ActionSkip          UndoAction = "skip"          // already as before
	ActionUnrecoverable UndoAction = "unrecoverable" // before content was recorded by hash only
)

// UndoOptions choose what to undo. With none of Call, To and WholeRun, the
// newest call with file changes that is still in effect is undone.
type UndoOptions struct {
	Call     string
	To       *patchstore.Entry // revert every patch recorded after this checkpoint
	WholeRun bool
	Globs    []string // only paths matching these
	DryRun   bool
	// Markers writes git-style conflict markers where hunks overlap instead
	// of leaving the file as it is.
	Markers bool
}

// UndoItem is one path of an undo plan.
type UndoItem struct {
	Path    string
	State   conflict.State // against the newest patch being undone
	Action  UndoAction
	Calls   []string // the patches undone, newest first
	Current patchstore.State
	Target  patchstore.State // what undo writes (absent: delete)
	Reason  string
	Written bool // the file was changed (conflict markers included)

	content []byte
}

// UndoResult reports an undo.
type UndoResult struct {
	Run       string
	Undone    []string // calls reverted
	UndoCall  string   // the undo's own call in the ledger (redo undoes it)
	Commit    git.Hash // the checkpoint that finished the undo
	Items     []UndoItem
	Conflicts int // paths left conflicted (or written with markers)
	DryRun    bool
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
func (g *Guard) Undo(ctx context.Context, runID string, o UndoOptions) (*UndoResult, error) {
	return g.undo(ctx, runID, o, false)
}

// Redo undoes the newest undo that is still in effect (or undo call
// o.Call), restoring exactly what that undo changed.
func (g *Guard) Redo(ctx context.Context, runID string, o UndoOptions) (*UndoResult, error) {
	return g.undo(ctx, runID, o, true)
}

func isUndoCall(c *patchstore.Call) bool {
	return c.Ledger.ToolName == ToolUndo || c.Ledger.ToolName == ToolRedo
}

func (g *Guard) undo(ctx context.Context, runID string, o UndoOptions, redo bool) (*UndoResult, error) {
	for _, gl := range o.Globs {
		if !validGlob(gl) {
			return nil, fmt.Errorf("glob %q: %w", gl, workspace.ErrBadGlob)
		}
	}
	run, err := g.readRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	id := run.ID
	targets, err := undoTargets(run, o, redo)
	if err != nil {
		return nil, err
	}
	res := &UndoResult{Run: id, DryRun: o.DryRun, HeadMoves: g.headMovesOf(ctx, targets)}
	for _, c := range targets {
		res.Undone = append(res.Undone, c.Ledger.CallID)
	}
	items, err := g.plan(ctx, targets, o)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 && !redo {
		return nil, fmt.Errorf("%w: the selected calls changed no path matching %s", ErrNothingToUndo, strings.Join(o.Globs, ", "))
	}
	res.Items = items
	for _, it := range items {
		if it.Action == ActionConflict || it.Action == ActionUnrecoverable {
			res.Conflicts++
		}
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
	undoID := resumableUndo(run, res.Undone, redo)
	if undoID == "" {
		tool, prefix := ToolUndo, "undo"
		if redo {
			tool, prefix = ToolRedo, "redo"
		}
		undoID = newCallID(run, prefix)
		opts := CallOptions{CallID: undoID, Tool: tool, Paths: paths, Undoes: res.Undone,
			Input: strings.Join(res.Undone, " "), Idempotency: patchstore.Idempotent, ReplayPolicy: patchstore.ReplayAuto,
			ledgerOnly: len(paths) == 0}
		if _, err := g.CallStart(ctx, id, opts); err != nil {
			return nil, fmt.Errorf("record undo start: %w", err)
		}
	}
	res.UndoCall = undoID
	for i := range res.Items {
		it := &res.Items[i]
		switch it.Action {
		case ActionRestore, ActionDelete, ActionRecreate, ActionMerge:
		case ActionConflict:
			if !o.Markers || it.content == nil {
				continue
			}
		default:
			continue
		}
		// The plan was made from the file as it was; if someone changed it
		// since, writing the plan would lose their edit.
		now, _, err := g.WS.Capture(it.Path, false)
		if err != nil {
			return res, fmt.Errorf("undo %s (undo call %s stays started; run the command again to finish): %w", it.Path, undoID, err)
		}
		if st := state(now); st != it.Current || (now.Mode == odb.ModeTree) {
			if it.Action != ActionConflict {
				res.Conflicts++
			}
			it.Action, it.Reason = ActionConflict, "changed while undo ran; left as it is (run undo again)"
			continue
		}
		if err := g.writeState(ctx, it.Path, it.Target, it.content); err != nil {
			return res, fmt.Errorf("undo %s (undo call %s stays started; run the command again to finish): %w", it.Path, undoID, err)
		}
		it.Written = true
		fault.Point("undo.write")
	}
	done, err := g.callFinish(ctx, id, undoID, FinishOptions{Result: fmt.Sprintf("%d path(s) written, %d conflict(s)", countWritten(res.Items), res.Conflicts)},
		func(tip *patchstore.Run) {
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
		if (it.Action == ActionConflict || it.Action == ActionUnrecoverable) && !it.Written {
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
func markUndone(tip *patchstore.Run, undoID string, undone []string, redo bool) {
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
			return c.Ledger.ToolName == ToolUndo && c.Ledger.UndoneBy == "" && c.Ledger.Status.Finished()
		}
	}
	all := OrderedCalls(run)
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
			what = "no undo is in effect"
		}
		return nil, fmt.Errorf("%w: %s", ErrNothingToUndo, what)
	}
	return out, nil
}

// resumableUndo finds an undo call that started on the same calls and was
// interrupted: running undo again finishes it, so its before states (the
// state before the first attempt) are what redo restores.
func resumableUndo(run *patchstore.Run, targets []string, redo bool) string {
	want := strings.Join(targets, "\x00")
	tool := ToolUndo
	if redo {
		tool = ToolRedo
	}
	for _, c := range OrderedCalls(run) {
		if c.Ledger.ToolName == tool && c.Ledger.Status == patchstore.StatusStarted &&
			strings.Join(c.Ledger.Undoes, "\x00") == want {
			return c.Ledger.CallID
		}
	}
	return ""
}

func newCallID(run *patchstore.Run, prefix string) string {
	n := 1
	if run.Exists() {
		n = run.Checkpoint.Seq + 1
	}
	for {
		id := fmt.Sprintf("%s-%03d", prefix, n)
		if run.Calls[id] == nil {
			return id
		}
		n++
	}
}

// plan computes, per path, what undoing the targets' patches gives.
func (g *Guard) plan(ctx context.Context, targets []*patchstore.Call, o UndoOptions) ([]UndoItem, error) {
	byPath, paths := patchesByPath(targets, o.Globs)
	items := make([]UndoItem, 0, len(paths))
	for _, p := range paths {
		it, err := g.planPath(ctx, p, byPath[p], o.Markers)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, nil
}

// version is a path's content during planning.
type version struct {
	st      patchstore.State
	content []byte
	loaded  bool
}

func (g *Guard) load(v *version) error {
	if v.loaded || !v.st.Exists() {
		v.loaded = true
		return nil
	}
	data, err := g.DB.ReadAs(v.st.Hash, odb.TypeBlob)
	if err != nil {
		return err
	}
	v.content, v.loaded = data, true
	return nil
}

func (g *Guard) planPath(ctx context.Context, path string, patches []*patchstore.FilePatch, markers bool) (UndoItem, error) {
	newest := patches[len(patches)-1]
	it := UndoItem{Path: path}
	for i := len(patches) - 1; i >= 0; i-- {
		it.Calls = append(it.Calls, patches[i].ToolCallID)
	}
	curFS, _, err := g.WS.Capture(path, false)
	if err != nil {
		return it, err
	}
	cur := version{st: state(curFS)}
	isDir := curFS.Mode == odb.ModeTree
	if isDir {
		cur.st = patchstore.State{}
	}
	it.Current = cur.st
	it.State = conflict.Classify(newest.Before(), newest.After(), cur.st)
	if isDir {
		it.State, it.Action, it.Reason = conflict.Conflicted, ActionConflict, "a folder is there now"
		return it, nil
	}
	if cur.st.Exists() && cur.st.Mode != odb.ModeGitlink {
		// The current content in the form the records use (converted, for
		// paths git converts), so merges compare like with like.
		stored, _, err := g.WS.Capture(path, true)
		if err != nil {
			return it, err
		}
		data, err := g.DB.ReadAs(stored.Hash, odb.TypeBlob)
		if err != nil {
			return it, fmt.Errorf("read %s: %w", path, err)
		}
		cur.content, cur.loaded = data, true
	}
	merged, conflicted, markersWritten := false, false, false
	for i := len(patches) - 1; i >= 0; i-- {
		p := patches[i]
		before := version{st: p.Before()}
		after := version{st: p.After()}
		switch cur.st {
		case after.st:
			if p.Oversize && before.st.Exists() && !g.DB.Has(before.st.Hash) {
				it.Action, it.Reason = ActionUnrecoverable, "its before content was over the size limit and recorded by hash only"
				it.Target = cur.st
				return it, nil
			}
			if err := g.load(&before); err != nil {
				return it, fmt.Errorf("%w: before content of %s: %w", patchstore.ErrCorrupt, path, err)
			}
			cur = before
			continue
		case before.st:
			continue
		}
		// Someone else changed the file after this patch: merge.
		why := mergeable(cur.st, before.st, after.st, p)
		if why == "" {
			if err := g.load(&before); err != nil {
				return it, err
			}
			if err := g.load(&after); err != nil {
				return it, err
			}
			if patchstore.IsBinary(cur.content) || patchstore.IsBinary(before.content) || patchstore.IsBinary(after.content) {
				why = "binary content"
			}
		}
		if why != "" {
			it.Action, it.Reason, it.Target = ActionConflict, why+"; left as it is", it.Current
			return it, nil
		}
		out, n, err := git.MergeFile(ctx, filepath.Join(g.WS.StateDir(), "tmp"), cur.content, after.content, before.content,
			[3]string{"current", "agent (" + p.ToolCallID + ")", "before " + p.ToolCallID})
		if err != nil {
			return it, err
		}
		if n > 0 && !markers {
			it.Action, it.Target = ActionConflict, it.Current
			it.Reason = fmt.Sprintf("%d overlapping hunk(s) between the agent's edit and later edits; left as it is (--conflict markers writes conflict markers)", n)
			return it, nil
		}
		if n > 0 {
			conflicted, markersWritten = true, true
		}
		merged = true
		mode := cur.st.Mode
		if cur.st.Mode == after.st.Mode && before.st.Exists() {
			mode = before.st.Mode
		}
		if !before.st.Exists() && len(out) == 0 {
			cur = version{loaded: true}
		} else {
			cur = version{st: patchstore.State{Mode: mode, Hash: odb.HashObject(odb.TypeBlob, out)}, content: out, loaded: true}
		}
	}
	it.Target = cur.st
	it.content = cur.content
	if it.content == nil && cur.st.Exists() {
		it.content = []byte{}
	}
	switch {
	case conflicted:
		it.Action = ActionConflict
		if markersWritten {
			it.Reason = "overlapping hunks; conflict markers written"
		}
	case merged:
		it.Action = ActionMerge
	case cur.st == it.Current:
		it.Action, it.content = ActionSkip, nil
	case !cur.st.Exists():
		it.Action = ActionDelete
	case !it.Current.Exists():
		it.Action = ActionRecreate
	default:
		it.Action = ActionRestore
	}
	if it.Action == ActionMerge && cur.st == it.Current {
		it.Action, it.content = ActionSkip, nil
	}
	return it, nil
}

// mergeable says why a three-way merge is impossible ("" when it is not).
func mergeable(cur, before, after patchstore.State, p *patchstore.FilePatch) string {
	switch {
	case p.Oversize:
		return "over the size limit"
	case !cur.Exists():
		return "deleted since the agent's edit"
	case cur.Mode == odb.ModeSymlink || before.Mode == odb.ModeSymlink || after.Mode == odb.ModeSymlink:
		return "a symlink"
	case cur.Mode == odb.ModeGitlink || before.Mode == odb.ModeGitlink || after.Mode == odb.ModeGitlink:
		return "a submodule"
	}
	return ""
}
