package undoplan

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/internal/ospath"
	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// ErrNothingToUndo is returned when no call with file changes is in
// effect (or none matches the selection).
var ErrNothingToUndo = errors.New("nothing to undo")

// ErrNotAnUndo is returned when redo is given a call that is not an undo.
var ErrNotAnUndo = errors.New("not an undo call")

// Planner reads a run's calls and the work tree to plan an undo. It
// writes nothing but merge scratch files under the state folder.
type Planner struct {
	DB     *odb.DB
	WS     *workspace.Workspace
	Store  *patchstore.Store
	Reader *runread.Reader
}

// Selection says what to undo: call Call, the calls finished after
// checkpoint To, or the whole run; with none of them, the newest call in
// effect that still has something to revert.
type Selection struct {
	Call     record.CallID
	To       *record.Entry
	WholeRun bool
	Globs    []string // only paths matching these
	Markers  bool     // write conflict markers where hunks overlap
	Force    bool     // revert paths shared with a call of another run, and guessed ones
}

// Passed is a call plain undo passed over: every path it could touch
// conflicts with later edits (or was recorded by hash only).
type Passed struct {
	Call record.CallID
	Left []record.Plan
}

// IsUndoCall reports whether c is an undo or a redo.
func IsUndoCall(c *patchstore.Call) bool {
	return c.Ledger.ToolName == runread.ToolUndo || c.Ledger.ToolName == runread.ToolRedo
}

// MarkUndone records in the ledger which calls are no longer in effect.
func MarkUndone(tip *patchstore.Run, undoID record.CallID, undone []record.CallID, redo bool) {
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
func undoTargets(run *patchstore.Run, o Selection, redo bool) ([]*patchstore.Call, error) {
	inEffect := func(c *patchstore.Call) bool {
		return len(c.Patches) > 0 && c.Ledger.UndoneBy == "" && !IsUndoCall(c)
	}
	if redo {
		inEffect = func(c *patchstore.Call) bool {
			return c.Ledger.ToolName == runread.ToolUndo && c.Ledger.UndoneBy == "" && c.Ledger.Status.Finished() && len(c.Patches) > 0
		}
	}
	all := record.OrderedCalls(run.Calls)
	var out []*patchstore.Call
	switch {
	case o.Call != "":
		c := run.Calls[o.Call]
		if c == nil {
			return nil, fmt.Errorf("call %q in run %s: %w", o.Call, run.ID, patchstore.ErrUnknownCall)
		}
		if redo && c.Ledger.ToolName != runread.ToolUndo {
			return nil, fmt.Errorf("call %s is not an undo; redo takes an undo call: %w", o.Call, ErrNotAnUndo)
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
func (p *Planner) loadTargetCandidates(run *patchstore.Run, o Selection, redo bool) error {
	switch {
	case o.Call != "":
		return p.Store.LoadCalls(run, o.Call)
	case o.WholeRun:
		return p.Store.LoadAll(run)
	}
	candidate := func(q patchstore.Posting) bool {
		if redo {
			return q.Patch && !q.Undone && q.Tool == runread.ToolUndo
		}
		return runread.InEffect(q)
	}
	return p.Reader.NewestFirst(run, func(q patchstore.Posting) (bool, error) {
		if o.To != nil && q.Finish != 0 && q.Finish <= o.To.Checkpoint.Seq {
			return false, nil
		}
		if !candidate(q) {
			return true, nil
		}
		if err := p.Store.LoadIndexed(run, q.Call); err != nil {
			return false, err
		}
		// Plain redo stops at the newest undo it can take back.
		return o.To != nil || !run.Calls[q.Call].Ledger.Status.Finished(), nil
	})
}

// Pick chooses the calls to revert and plans their paths. Plain undo
// (no call, checkpoint or whole run named) takes the newest call in effect
// that still has something it can revert, passing over the calls whose
// paths all conflict with later edits, so that a repeated undo moves on
// instead of trying the same call again.
func (p *Planner) Pick(ctx context.Context, run *patchstore.Run, o Selection, redo bool) ([]*patchstore.Call, []record.Plan, []Passed, error) {
	if redo || o.Call != "" || o.To != nil || o.WholeRun {
		if err := p.loadTargetCandidates(run, o, redo); err != nil {
			return nil, nil, nil, err
		}
		targets, err := undoTargets(run, o, redo)
		if err != nil {
			return nil, nil, nil, err
		}
		items, err := Calls(ctx, p, targets, o)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(items) == 0 && !redo {
			return nil, nil, nil, fmt.Errorf("%w: the selected calls changed no path matching %s", ErrNothingToUndo, strings.Join(o.Globs, ", "))
		}
		return targets, items, nil, nil
	}
	if err := p.Reader.OpenCalls(run); err != nil {
		return nil, nil, nil, err
	}
	all := record.OrderedCalls(run.Calls)
	// An undo killed midway is finished first: running undo again is how
	// it completes (its start recorded what redo restores).
	for i := len(all) - 1; i >= 0; i-- {
		u := all[i]
		if u.Ledger.ToolName != runread.ToolUndo || u.Ledger.Status != record.StatusStarted {
			continue
		}
		if err := p.Store.LoadCalls(run, u.Ledger.Undoes...); err != nil {
			return nil, nil, nil, err
		}
		var targets []*patchstore.Call
		for _, id := range u.Ledger.Undoes {
			if c := run.Calls[id]; c != nil {
				targets = append(targets, c)
			}
		}
		if len(targets) > 0 {
			items, err := Calls(ctx, p, targets, o)
			return targets, items, nil, err
		}
	}
	var (
		passed  []Passed
		picked  *patchstore.Call
		planned []record.Plan
	)
	err := p.Reader.NewestFirst(run, func(q patchstore.Posting) (bool, error) {
		if !runread.InEffect(q) {
			return true, nil
		}
		if err := p.Store.LoadIndexed(run, q.Call); err != nil {
			return false, err
		}
		c := run.Calls[q.Call]
		if c == nil || len(c.Patches) == 0 || c.Ledger.UndoneBy != "" || IsUndoCall(c) {
			return true, nil
		}
		items, err := Calls(ctx, p, []*patchstore.Call{c}, o)
		if err != nil {
			return false, err
		}
		for _, it := range items {
			if it.Writes() {
				picked, planned = c, items
				return false, nil
			}
		}
		pc := Passed{Call: c.Ledger.CallID}
		for _, it := range items {
			if it.Action == record.ActionConflict || it.Action == record.ActionUnrecoverable || it.Action == record.ActionShared || it.Action == record.ActionUncertain {
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

// Resumable finds an undo call that started on the same calls and was
// interrupted: running undo again finishes it, so its before states (the
// state before the first attempt) are what redo restores.
func (p *Planner) Resumable(run *patchstore.Run, targets []record.CallID, redo bool) (record.CallID, error) {
	if err := p.Reader.OpenCalls(run); err != nil {
		return "", err
	}
	want := record.JoinCallIDs(targets, "\x00")
	tool := runread.ToolUndo
	if redo {
		tool = runread.ToolRedo
	}
	for _, c := range record.OrderedCalls(run.Calls) {
		if c.Ledger.ToolName == tool && c.Ledger.Status == record.StatusStarted &&
			record.JoinCallIDs(c.Ledger.Undoes, "\x00") == want {
			return c.Ledger.CallID, nil
		}
	}
	return "", nil
}

// NewCallID returns the first id prefix-NNN (from the run's next checkpoint
// number up) that no call of run has.
func (p *Planner) NewCallID(run *patchstore.Run, prefix string) (record.CallID, error) {
	n := 1
	if run.Exists() {
		n = run.Checkpoint.Seq + 1
	}
	for {
		id, err := record.ParseCallID(fmt.Sprintf("%s-%03d", prefix, n))
		if err != nil {
			return "", err
		}
		has, err := p.Store.HasCall(run, id)
		if err != nil || !has {
			return id, err
		}
		n++
	}
}

// Calls computes, per path, what undoing the targets' patches gives.
func Calls[C record.Recorded](ctx context.Context, p *Planner, targets []C, o Selection) ([]record.Plan, error) {
	byPath, paths := PatchesByPath(targets, o.Globs)
	items := make([]record.Plan, 0, len(paths))
	beneath := map[string]string{} // path → the symlinked folder it is beneath now
	for _, path := range paths {
		it, link, err := p.path(ctx, path, byPath[path], o.Markers)
		if err != nil {
			return nil, err
		}
		if link != "" {
			beneath[path] = link
		}
		if !o.Force {
			leaveShared(&it, byPath[path])
			leaveGuessed(&it, byPath[path])
		}
		items = append(items, it)
	}
	if err := p.typeSwaps(items, beneath); err != nil {
		return nil, err
	}
	return items, nil
}

// Path plans the undo of one path's patches against its content now. A
// path beneath a symlinked folder is refused (workspace.ErrSymlinkParent):
// only a whole plan (Calls) can tell whether it deletes the link first.
func (p *Planner) Path(ctx context.Context, path string, patches []*record.FilePatch, markers bool) (record.Plan, error) {
	pl, link, err := p.path(ctx, path, patches, markers)
	if err == nil && link != "" {
		err = fmt.Errorf("%s: %w (%s)", path, workspace.ErrSymlinkParent, link)
	}
	return pl, err
}

// path is Path, except that it plans a path beneath a symlinked folder as
// absent (as git sees it: nothing is looked up through the link) and
// returns that folder; typeSwaps then refuses the plan unless the same
// undo deletes the link first.
func (p *Planner) path(ctx context.Context, path string, patches []*record.FilePatch, markers bool) (record.Plan, string, error) {
	if pl, refused := refusedHere(path, patches); refused {
		return pl, "", nil
	}
	link, err := p.WS.LinkedParent(path)
	if err != nil {
		return record.Plan{Path: path}, "", fmt.Errorf("check %s: %w", path, err)
	}
	if link != "" {
		pl, err := conflict.PlanPath(path, patches, conflict.Current{}, markers, p.Sources(ctx))
		return pl, link, err
	}
	pl, err := p.planHere(ctx, path, patches, markers)
	return pl, "", err
}

// planHere plans one path no symlinked folder is above.
func (p *Planner) planHere(ctx context.Context, path string, patches []*record.FilePatch, markers bool) (record.Plan, error) {
	// One look at the path gives both its state and its content, stored in
	// the form the records use (converted, for paths git converts), so
	// merges compare like with like: git or the user may rewrite it at any
	// moment (git checkout unlinks and creates), and two looks could mix a
	// state with another content. Content over the size limit is hashed,
	// not stored or read: nothing could merge it.
	fs, over, err := p.WS.Capture(path, true)
	if err != nil {
		return record.Plan{Path: path}, err
	}
	cur := conflict.Current{State: fs.State(), IsDir: fs.Mode == record.ModeTree, Oversize: over}
	if cur.State.Exists() && !cur.IsDir && !over && cur.State.Mode != record.ModeGitlink {
		if cur.Content, err = p.DB.ReadAs(fs.Hash, odb.TypeBlob); err != nil {
			return record.Plan{Path: path}, fmt.Errorf("read %s: %w", path, err)
		}
	}
	pl, err := conflict.PlanPath(path, patches, cur, markers, p.Sources(ctx))
	return pl, err
}

// Sources gives undo plans the object database and git merge-file.
func (p *Planner) Sources(ctx context.Context) conflict.Sources {
	return conflict.Sources{
		Load: func(h record.Hash) ([]byte, error) { return p.DB.ReadAs(h, odb.TypeBlob) },
		Has:  p.DB.Has,
		Merge: func(cur, base, other []byte, labels [3]string) ([]byte, int, error) {
			return git.MergeFile(ctx, filepath.Join(p.WS.StateDir(), "tmp"), cur, base, other, labels)
		},
	}
}

// refusedHere plans a path this system cannot hold (on Windows: a
// backslash, a ':' or a device name in it; see ospath.CheckName) as a
// conflict left as it is, with the reason, without looking at the file:
// the name would reach another file. Every other path is planned as usual.
func refusedHere(path string, patches []*record.FilePatch) (record.Plan, bool) {
	return refusedOn(ospath.Host(), path, patches)
}

// refusedOn is refusedHere on a system of flavor fl.
func refusedOn(fl ospath.Flavor, path string, patches []*record.FilePatch) (record.Plan, bool) {
	err := fl.CheckName(path)
	if err == nil || len(patches) == 0 {
		return record.Plan{}, false
	}
	pl := record.Plan{Path: path, State: record.Conflicted, Action: record.ActionConflict,
		Reason: fmt.Sprintf("this system cannot hold the name (%v); left as it is", err)}
	for i := len(patches) - 1; i >= 0; i-- {
		pl.Calls = append(pl.Calls, patches[i].ToolCallID)
	}
	return pl, true
}

// leaveShared turns the plan of a path that some patch shares with a call
// of another run into "left as it is": that call may have made the change,
// and undo never reverts what another call may own. UndoOptions.Force
// keeps the plan.
func leaveShared(it *record.Plan, patches []*record.FilePatch) {
	if !it.Writes() {
		return
	}
	var with []string
	seen := map[record.CallRef]bool{}
	for _, p := range patches {
		for _, r := range p.SharedWith {
			if !seen[r] {
				seen[r] = true
				with = append(with, fmt.Sprintf("call %s of run %s", r.Call, r.Run))
			}
		}
	}
	if len(with) == 0 {
		return
	}
	it.Action, it.Content, it.Target = record.ActionShared, nil, it.Current
	it.Reason = "shared with " + strings.Join(with, ", ") +
		", which ran at the same time and may have made this change; left as it is (--force reverts it)"
}

// PatchesByPath groups the calls' patches by path (oldest first within a
// path, as the calls are ordered) and returns the paths sorted; with globs,
// only matching paths.
func PatchesByPath[C record.Recorded](calls []C, globs []string) (map[string][]*record.FilePatch, []string) {
	byPath := map[string][]*record.FilePatch{}
	for _, rc := range calls {
		c := rc.Record()
		for i := range c.Patches {
			p := &c.Patches[i]
			if len(globs) > 0 && !workspace.MatchAny(globs, p.Path) {
				continue
			}
			byPath[p.Path] = append(byPath[p.Path], p)
		}
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return byPath, paths
}

// Tally is what an undo plan leaves: paths left conflicted (or written
// with markers, or recorded by hash only), paths left alone because
// another run's call may have made them or because the change was only
// guessed, and the plans that write.
type Tally struct{ Conflicts, Shared, Uncertain, Writes int }

// Count tallies plans and, for a plain undo that could revert nothing,
// the plans of the calls it passed over: what they leave is then the
// finding.
func Count(plans []record.Plan, passed []Passed) Tally {
	var t Tally
	for _, pc := range passed {
		for _, it := range pc.Left {
			switch it.Action {
			case record.ActionUncertain:
				t.Uncertain++
			case record.ActionShared:
				t.Shared++
			default:
				t.Conflicts++
			}
		}
	}
	for _, it := range plans {
		switch it.Action {
		case record.ActionConflict, record.ActionUnrecoverable:
			t.Conflicts++
		case record.ActionShared:
			t.Shared++
		case record.ActionUncertain:
			t.Uncertain++
		}
		if it.Writes() {
			t.Writes++
		}
	}
	return t
}

// CallTool is the tool name and call id prefix of an undo's (or, with
// redo, a redo's) own call.
func CallTool(redo bool) (tool, prefix string) {
	if redo {
		return runread.ToolRedo, "redo"
	}
	return runread.ToolUndo, "undo"
}

// Paths lists the paths of plans, in order.
func Paths(plans []record.Plan) []string {
	paths := make([]string, 0, len(plans))
	for _, it := range plans {
		paths = append(paths, it.Path)
	}
	return paths
}

// Marked lists the calls an undo's finish marks: the undone ones and,
// for a redo, the calls the undone undos (targets) had reverted.
func Marked(undone []record.CallID, targets []*patchstore.Call, redo bool) []record.CallID {
	marked := append([]record.CallID(nil), undone...)
	if redo {
		for _, c := range targets {
			marked = append(marked, c.Ledger.Undoes...)
		}
	}
	return marked
}

// Left counts the paths of plans an undo did not write and could not
// revert: left conflicted, recorded by hash only, shared or uncertain. A
// call with such a path is still (partly) in effect.
func Left(plans []record.Plan, written []bool) int {
	n := 0
	for i, it := range plans {
		switch it.Action {
		case record.ActionConflict, record.ActionUnrecoverable, record.ActionShared, record.ActionUncertain:
			if !written[i] {
				n++
			}
		}
	}
	return n
}

// SplitUndos splits calls into the agent's and the undos and redos, each
// in the order given.
func SplitUndos(calls []*patchstore.Call) (agent, undos []*patchstore.Call) {
	for _, c := range calls {
		if IsUndoCall(c) {
			undos = append(undos, c)
		} else {
			agent = append(agent, c)
		}
	}
	return agent, undos
}
