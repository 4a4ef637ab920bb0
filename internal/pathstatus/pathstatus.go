// Package pathstatus classifies the paths a run's calls touched against
// the newest patch for each (applied, reapplyable, conflicted, merged,
// unrecoverable), hashing only those paths.
//
// Invariants: it reads the work tree and the object database and writes
// nothing; a name this system cannot hold is reported without looking at
// the file; a path whose undone change someone else's edits outlived is
// merged, not conflicted, when the file is as that undo left it.
package pathstatus

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/internal/filepatch"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/internal/ospath"
	"github.com/gitguard/gitguard/internal/undoplan"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// Classifier classifies paths of one work tree.
type Classifier struct {
	DB *odb.DB
	WS *workspace.Workspace
}

// Paths classifies every path the agent calls patched, by path, against
// the newest patch; undos are the undo and redo calls, which tell which
// undo last touched each path.
func (cl *Classifier) Paths(ctx context.Context, run *patchstore.Run, agent, undos []*patchstore.Call) ([]record.PathStatus, error) {
	var out []record.PathStatus
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
		if ps, ok := unreadableHere(run, fp); ok {
			out = append(out, ps)
			continue
		}
		cur, err := cl.capture(p, func(link string) bool { return newest[link] != nil })
		if err != nil {
			return nil, err
		}
		now := conflict.Current{State: cur.State(), IsDir: cur.Mode == record.ModeTree}
		if now.IsDir {
			now.State = record.State{}
		}
		c := run.Calls[fp.ToolCallID]
		ps := record.PathStatus{
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
		cl.markUnrecoverable(&ps, fp)
		markGuessed(&ps, fp)
		if ps.Undo, err = cl.undoAction(ctx, &ps, fp); err != nil {
			return nil, err
		}
		out = append(out, ps)
	}
	return out, nil
}

// undoAction is what undoing the path's call does to it. Only a
// conflicted path is planned (a three-way merge through git merge-file,
// writing nothing but scratch files): the other classes say it.
func (cl *Classifier) undoAction(ctx context.Context, ps *record.PathStatus, fp *record.FilePatch) (record.Action, error) {
	switch {
	case len(ps.SharedWith) > 0:
		return record.ActionSkip, nil // left alone unless forced
	case ps.State == conflict.Applied && !ps.Before.Exists():
		return record.ActionDelete, nil
	case ps.State == conflict.Applied:
		return record.ActionRestore, nil
	case ps.State != conflict.Conflicted:
		return record.ActionSkip, nil
	}
	if ps.IsDir || ps.Reason != "" {
		return record.ActionConflict, nil
	}
	pl, err := (&undoplan.Planner{DB: cl.DB, WS: cl.WS}).Path(ctx, ps.Path, []*record.FilePatch{fp}, false)
	if err != nil {
		return "", err
	}
	switch pl.Action {
	case record.ActionMerge, record.ActionConflict, record.ActionDelete, record.ActionRestore:
		return pl.Action, nil
	case record.ActionRecreate:
		return record.ActionRestore, nil
	case record.ActionSkip:
		return record.ActionSkip, nil
	}
	return record.ActionConflict, nil
}

// newerCall reports whether a finished after b.
func newerCall(a, b *patchstore.Call) bool {
	fa, sa := record.CallOrder(&a.Call)
	fb, sb := record.CallOrder(&b.Call)
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

// markUnrecoverable turns an applied path whose patch undo cannot revert
// (content over the size limit, recorded by hash only: see
// conflict.OversizeLoss) into an Unrecoverable one with the reason, so that
// status says what undo will say instead of calling it applied.
func (cl *Classifier) markUnrecoverable(ps *record.PathStatus, fp *record.FilePatch) {
	if ps.State != conflict.Applied {
		return
	}
	if why := conflict.OversizeLoss(fp, cl.DB.Has); why != "" {
		ps.State, ps.Reason = conflict.Irrecoverable, why
	}
}

// markGuessed turns a path whose change was only guessed to be a killed
// call's into a Guessed one with the reason, while that change (or an edit
// of it) is in place: status then says what undo will do, leave it.
func markGuessed(ps *record.PathStatus, fp *record.FilePatch) {
	if fp.Guess == "" || ps.UndoneBy != "" {
		return
	}
	ps.Guess = fp.Guess
	if ps.State == conflict.Applied || ps.State == conflict.Conflicted {
		ps.State = record.Guessed
	}
}

// unreadableHere is the status of a recorded path this system cannot hold
// (on Windows: a backslash, a ':' or a device name in it), which is left
// unread: looking it up would read another file. ok is false for every
// path this system can hold.
func unreadableHere(run *patchstore.Run, fp *record.FilePatch) (ps record.PathStatus, ok bool) {
	err := ospath.Host().CheckName(fp.Path)
	if err == nil {
		return record.PathStatus{}, false
	}
	c := run.Calls[fp.ToolCallID]
	return record.PathStatus{Path: fp.Path, Call: fp.ToolCallID, Tool: c.Ledger.ToolName, Before: fp.Before(), After: fp.After(),
		Oversize: fp.Oversize, State: conflict.Conflicted, UndoneBy: c.Ledger.UndoneBy,
		Reason: fmt.Sprintf("cannot be looked at on this system: %v", err)}, true
}

// Call describes each path of call c against the call's own patch, with
// the patch text and its line counts, and returns the paths sorted. It
// reads only c's patch blobs and the files c touched. It returns
// record.ErrCorrupt when a patch blob is missing.
func (cl *Classifier) Call(c *record.Call) ([]record.CallPatch, []string, error) {
	byPath, paths := undoplan.PatchesByPath([]*record.Call{c}, nil)
	var out []record.CallPatch
	for _, p := range paths {
		fps := byPath[p]
		fp := fps[len(fps)-1]
		cp := record.CallPatch{Path: p, Before: fp.Before(), After: fp.After(), Binary: fp.Binary, Oversize: fp.Oversize}
		cur, err := cl.capture(p, func(link string) bool { return byPath[link] != nil })
		if err != nil {
			return nil, nil, fmt.Errorf("inspect %s: %w", p, err)
		}
		cp.Current = cur.State()
		if cur.Mode == record.ModeTree {
			cp.Current = record.State{}
			cp.State = conflict.Current{IsDir: true}.Class(cp.Before, cp.After)
		} else {
			cp.State = conflict.Classify(cp.Before, cp.After, cp.Current)
		}
		text, err := cl.DB.ReadAs(fp.PatchRef, odb.TypeBlob)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: patch of %s in call %s: %w", record.ErrCorrupt, p, c.Ledger.CallID, err)
		}
		cp.Text = text
		if !cp.Binary {
			cp.Added, cp.Removed = filepatch.CountLines(text)
		}
		out = append(out, cp)
	}
	return out, paths, nil
}

// Skipped lists, once per path and newest call last, the paths the
// calls could not record.
func Skipped(calls []*patchstore.Call) []record.SkippedPath {
	byPath := map[string]record.SkippedPath{}
	for _, c := range calls {
		for _, sk := range c.Ledger.Skipped {
			byPath[sk.Path] = record.SkippedPath{Call: c.Ledger.CallID, Path: sk.Path, Reason: sk.Reason}
		}
	}
	out := make([]record.SkippedPath, 0, len(byPath))
	for _, s := range byPath {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// capture is the workspace's Capture of p, except beneath a symlinked
// folder that is itself a path the calls patched (patched says which):
// there the calls turned a folder into a link, and beneath it the path is
// absent, as git sees it. Nothing is looked up through the link; beneath
// any other link the capture is refused as ever.
func (cl *Classifier) capture(p string, patched func(string) bool) (record.FileState, error) {
	cur, _, err := cl.WS.Capture(p, false)
	if errors.Is(err, workspace.ErrSymlinkParent) {
		if link, lerr := cl.WS.LinkedParent(p); lerr == nil && link != "" && patched(link) {
			return record.FileState{Path: p}, nil
		}
	}
	return cur, err
}
