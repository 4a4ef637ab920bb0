package conflict

import (
	"fmt"

	"github.com/gitguard/gitguard/record"
)

// Action is what undo does to one path (record.Action).
type Action = record.Action

// The actions of an undo plan (see record.Action).
const (
	Restore       = record.ActionRestore
	Delete        = record.ActionDelete
	Recreate      = record.ActionRecreate
	Merge         = record.ActionMerge
	Conflict      = record.ActionConflict
	Skip          = record.ActionSkip
	Unrecoverable = record.ActionUnrecoverable
	Shared        = record.ActionShared
)

// Current is a path as it is now in the work tree.
type Current struct {
	State record.State
	// IsDir says a folder is there now: no recorded file state equals it.
	IsDir bool
	// Content is the current content in the form records use (git's clean
	// form for converted paths); nil when absent or not a file.
	Content []byte
	// Oversize says the file is over the size limit: its content was not
	// read, so it cannot be merged.
	Oversize bool
}

// Class classifies a path against one patch. A folder where the patch
// left a file is someone else's doing, so it is Conflicted; where the
// patch left the path absent, the folder may be the agent's new type of
// the path (a file or a symlink it turned into a folder), and as a file
// state the path is absent, as the agent left it: Applied.
func (c Current) Class(before, after record.State) State {
	if c.IsDir {
		if !after.Exists() {
			return Applied
		}
		return Conflicted
	}
	return Classify(before, after, c.State)
}

// MergeFunc is a three-way merge in the manner of git merge-file: it takes
// current, base and other, and returns the merge and the number of
// overlapping hunks (written with conflict markers labelled as given).
type MergeFunc func(current, base, other []byte, labels [3]string) (out []byte, conflicts int, err error)

// Sources are what a plan needs from the object database: a blob's content,
// and whether a blob is there at all.
type Sources struct {
	Load  func(record.Hash) ([]byte, error)
	Has   func(record.Hash) bool
	Merge MergeFunc
}

// Plan is what undo does to one path (record.Plan).
type Plan = record.Plan

// version is a path's content during planning.
type version struct {
	st      record.State
	content []byte
	loaded  bool
}

func (src Sources) load(v *version) error {
	if v.loaded || !v.st.Exists() {
		v.loaded = true
		return nil
	}
	data, err := src.Load(v.st.Hash)
	if err != nil {
		return err
	}
	v.content, v.loaded = data, true
	return nil
}

// PlanPath computes what reverting patches (oldest first, all of one path)
// does to the path as it is now. Patches are reverted newest first: where
// the path holds a patch's after state it gets the before state back; where
// it holds the before state there is nothing to do; anything else is
// someone else's edit, and a three-way merge (base = the agent's after,
// ours = current, theirs = the agent's before) takes out the agent's hunks
// and keeps theirs. Overlapping hunks leave the file as it is, unless
// markers asks for conflict markers. A folder where the newest patch left
// the path absent is the agent's new type of the path: the plan puts the
// old type back in its place (Plan.ReplacesDir), which the caller carries
// out only once the folder holds nothing of anyone else's. Nothing is
// written: the caller does what the plan says.
func PlanPath(path string, patches []*record.FilePatch, cur Current, markers bool, src Sources) (Plan, error) {
	pl, err := planPath(path, patches, cur, markers, src)
	switch {
	case !pl.ReplacesDir || pl.Action == Recreate:
	case pl.Action == Skip:
		// Absent before the calls too: nothing goes in the folder's place
		// (its files have plans of their own).
		pl.ReplacesDir = false
	default:
		// Only a write puts something in the folder's place; otherwise it
		// stays, and so does the finding.
		pl.ReplacesDir, pl.State, pl.Target, pl.Content = false, Conflicted, pl.Current, nil
		if pl.Action != Unrecoverable {
			pl.Action, pl.Reason = Conflict, "a folder is there now"
		}
	}
	return pl, err
}

func planPath(path string, patches []*record.FilePatch, cur Current, markers bool, src Sources) (Plan, error) {
	if len(patches) == 0 {
		return Plan{}, fmt.Errorf("plan %s: no patches", path)
	}
	newest := patches[len(patches)-1]
	pl := Plan{Path: path, Current: cur.State}
	for i := len(patches) - 1; i >= 0; i-- {
		pl.Calls = append(pl.Calls, patches[i].ToolCallID)
	}
	if cur.IsDir {
		pl.Current = record.State{}
	}
	pl.State = cur.Class(newest.Before(), newest.After())
	if cur.IsDir {
		if newest.After().Exists() {
			// The agent left a file there; someone else made the folder.
			pl.Action, pl.Reason = Conflict, "a folder is there now"
			return pl, nil
		}
		// The agent's call left no file there: the folder is its new type
		// (a file or a symlink turned into a folder), or someone else's. As
		// a file state the path is absent, as the agent left it; the plan
		// replaces the folder, and the caller keeps that only if the folder
		// holds nothing but files the same undo deletes.
		pl.ReplacesDir = true
	}
	now := version{st: pl.Current, content: cur.Content, loaded: cur.Content != nil || !pl.Current.Exists()}
	merged, markersWritten := false, false
	for i := len(patches) - 1; i >= 0; i-- {
		p := patches[i]
		before := version{st: p.Before()}
		after := version{st: p.After()}
		switch now.st {
		case after.st:
			if why := OversizeLoss(p, src.Has); why != "" {
				pl.Action, pl.Target, pl.Reason = Unrecoverable, now.st, why+"; left as it is"
				return pl, nil
			}
			if err := src.load(&before); err != nil {
				return pl, fmt.Errorf("%w: before content of %s: %w", record.ErrCorrupt, path, err)
			}
			now = before
			continue
		case before.st:
			continue
		}
		// Someone else changed the file after this patch: merge.
		why := mergeable(now.st, before.st, after.st, p)
		if why == "" && cur.Oversize && now.st == pl.Current {
			why = "over the size limit"
		}
		if why == "" {
			if err := src.load(&now); err != nil {
				return pl, fmt.Errorf("read %s: %w", path, err)
			}
			if err := src.load(&before); err != nil {
				return pl, err
			}
			if err := src.load(&after); err != nil {
				return pl, err
			}
			if record.IsBinary(now.content) || record.IsBinary(before.content) || record.IsBinary(after.content) {
				why = "binary content"
			}
		}
		if why != "" {
			pl.Action, pl.Reason, pl.Target = Conflict, why+"; left as it is", pl.Current
			return pl, nil
		}
		out, n, err := src.Merge(now.content, after.content, before.content,
			[3]string{"current", "agent (" + string(p.ToolCallID) + ")", "before " + string(p.ToolCallID)})
		if err != nil {
			return pl, err
		}
		if n > 0 && !markers {
			pl.Action, pl.Target = Conflict, pl.Current
			pl.Reason = fmt.Sprintf("%d overlapping hunk(s) between the agent's edit and later edits; left as it is (--conflict markers writes conflict markers)", n)
			return pl, nil
		}
		markersWritten = markersWritten || n > 0
		merged = true
		mode := now.st.Mode
		if now.st.Mode == after.st.Mode && before.st.Exists() {
			mode = before.st.Mode
		}
		if !before.st.Exists() && len(out) == 0 {
			now = version{loaded: true}
		} else {
			now = version{st: record.State{Mode: mode, Hash: record.BlobHash(out)}, content: out, loaded: true}
		}
	}
	pl.Target = now.st
	pl.Content = now.content
	if pl.Content == nil && now.st.Exists() {
		pl.Content = []byte{}
	}
	switch {
	case markersWritten:
		pl.Action, pl.Reason = Conflict, "overlapping hunks; conflict markers written"
	case now.st == pl.Current:
		pl.Action, pl.Content = Skip, nil
	case merged:
		pl.Action, pl.State = Merge, Merged
	case !now.st.Exists():
		pl.Action = Delete
	case !pl.Current.Exists():
		pl.Action = Recreate
	default:
		pl.Action = Restore
	}
	return pl, nil
}

// mergeable says why a three-way merge is impossible ("" when it is not).
func mergeable(cur, before, after record.State, p *record.FilePatch) string {
	switch {
	case p.Oversize:
		return "over the size limit"
	case !cur.Exists():
		return "deleted since the agent's edit"
	case cur.Mode == record.ModeSymlink || before.Mode == record.ModeSymlink || after.Mode == record.ModeSymlink:
		return "a symlink"
	case cur.Mode == record.ModeGitlink || before.Mode == record.ModeGitlink || after.Mode == record.ModeGitlink:
		return "a submodule"
	}
	return ""
}
