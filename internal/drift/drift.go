// Package drift finds what differs from a run's newest checkpoint: in the
// work tree, or staged in the index, leaving out what is no one's new
// edit (part of a recorded change staged hunk by hunk, content a merge in
// progress brings in); and the changes no call of the run recorded. Check
// also says what git is in the middle of and what differs from the view
// the run started with.
//
// Invariants: it reads the index, HEAD and the object database and writes
// nothing but merge scratch files and, when Check looks at the work tree,
// the objects of its snapshot; a path a started call covers is named
// with the call, as being recorded rather than drifted.
package drift

import (
	"context"
	"slices"

	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// Checker compares one work tree with a run's records.
type Checker struct {
	DB      *odb.DB
	WS      *workspace.Workspace
	Sources conflict.Sources // blob contents and git merge-file
}

// Staged lists the staged changes (index against HEAD) whose staged
// content is not what the checkpoint recorded for the path.
func (d *Checker) Staged(ctx context.Context, run *patchstore.Run) ([]record.Change, error) {
	index, err := d.WS.IndexTree(ctx)
	if err != nil {
		return nil, err
	}
	head, err := d.WS.ReadHead(ctx)
	if err != nil {
		return nil, err
	}
	var headTree record.Hash
	if !head.Commit.IsZero() {
		c, err := d.DB.ReadCommit(head.Commit)
		if err != nil {
			return nil, err
		}
		headTree = c.Tree
	}
	staged, err := d.DB.DiffTrees(headTree, index)
	if err != nil {
		return nil, err
	}
	var out []record.Change
	incoming := d.incoming()
	for _, s := range staged {
		rec, err := d.DB.Lookup(run.Checkpoint.WorktreeTree, s.Path)
		if err != nil {
			return nil, err
		}
		if rec.State() == s.After.State() || d.broughtIn(incoming, s.Path, s.After.State()) {
			continue
		}
		if derived, err := d.derivedFrom(s.Before.State(), rec.State(), s.After.State()); err != nil {
			return nil, err
		} else if derived {
			continue
		}
		out = append(out, record.Change{Path: s.Path, Before: rec, After: s.After})
	}
	return out, nil
}

// derivedFrom reports whether staged holds only changes that recorded has
// over head: part of a recorded change staged hunk by hunk (git add -p).
// Putting staged's changes on top of recorded then changes nothing.
func (d *Checker) derivedFrom(head, recorded, staged record.State) (bool, error) {
	if !recorded.Exists() || !staged.Exists() || !recorded.Mode.IsFile() || staged.Mode != recorded.Mode ||
		(head.Exists() && !head.Mode.IsFile()) {
		return false, nil
	}
	src := d.Sources
	load := func(st record.State) ([]byte, error) {
		if !st.Exists() {
			return nil, nil
		}
		return src.Load(st.Hash)
	}
	base, err := load(head)
	if err != nil {
		return false, err
	}
	rec, err := load(recorded)
	if err != nil {
		return false, err
	}
	stg, err := load(staged)
	if err != nil {
		return false, err
	}
	if record.IsBinary(base) || record.IsBinary(rec) || record.IsBinary(stg) {
		return false, nil
	}
	out, conflicts, err := src.Merge(rec, base, stg, [3]string{"recorded", "HEAD", "staged"})
	if err != nil {
		return false, err
	}
	return conflicts == 0 && string(out) == string(rec), nil
}

// CoveringCall names a started call whose capture includes path.
func CoveringCall(run *patchstore.Run, path string) record.CallID {
	for _, c := range record.OrderedCalls(run.Calls) {
		if c.Ledger.Status != record.StatusStarted {
			continue
		}
		if len(c.Ledger.Paths) == 0 {
			if len(c.Ledger.Globs) == 0 || workspace.MatchAny(c.Ledger.Globs, path) {
				return c.Ledger.CallID
			}
			continue
		}
		for _, p := range c.Ledger.Paths {
			if p == path {
				return c.Ledger.CallID
			}
		}
	}
	return ""
}

// incoming returns the trees of the commits the git operation in progress
// brings in (see workspace.OperationCommits): when the user commits a
// merge, a staged path that holds what the merged commit has was brought by
// git, not written by anyone since the checkpoint.
func (d *Checker) incoming() []record.Hash {
	var trees []record.Hash
	for _, h := range d.WS.OperationCommits() {
		if c, err := d.DB.ReadCommit(h); err == nil {
			trees = append(trees, c.Tree)
		}
	}
	return trees
}

// broughtIn reports whether staged, the staged content of path, is what
// one of the incoming trees holds there.
func (d *Checker) broughtIn(trees []record.Hash, path string, staged record.State) bool {
	for _, t := range trees {
		if fs, err := d.DB.Lookup(t, path); err == nil && fs.State() == staged {
			return true
		}
	}
	return false
}

// Unrecorded lists the changes from the checkpoint's work tree (from) to
// the work tree now (to) at paths no call of the run patched (touched is
// the run's path index).
func Unrecorded(db *odb.DB, from, to record.Hash, touched map[string][]patchstore.Posting) ([]record.Change, error) {
	changes, err := db.DiffTrees(from, to)
	if err != nil {
		return nil, err
	}
	var out []record.Change
	for _, c := range changes {
		if !slices.ContainsFunc(touched[c.Path], func(p patchstore.Posting) bool { return p.Patch }) {
			out = append(out, c)
		}
	}
	return out, nil
}
