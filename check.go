package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// Drift is one path that differs from the last checkpoint.
type Drift struct {
	Change record.Change
	// Call is a started call whose capture covers the path: the change is
	// being recorded, it is just not finished yet.
	Call record.CallID
}

// CheckReport is the result of Check.
type CheckReport struct {
	Run        record.RunID // empty when no run is active: nothing to check
	Checkpoint patchstore.Entry
	Staged     bool
	Drift      []Drift
	// Git is the merge, rebase or other operation in progress; with Staged,
	// paths staged with the content the operation brings in are not drift.
	Git *GitOperation
	// ViewChanges are the calls that changed what gitguard sees; ViewNow
	// names what differs now from the view the run started with, whoever
	// changed it (not with Staged). The run still sees as it started.
	ViewChanges []ViewChange
	ViewNow     []string
}

// Check compares the work tree (with staged, the changes staged in the
// index) against the newest checkpoint of the run. With no run given and
// none active it reports nothing. It writes no file and no ref.
func (g *Guard) Check(ctx context.Context, runID record.RunID, staged bool) (*CheckReport, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	id, err := g.ResolveRun(ctx, runID, true)
	if err != nil || id == "" {
		return &CheckReport{Staged: staged}, err
	}
	run, err := g.store.ReadRun(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := g.useRunSettings(ctx, run.Checkpoint); err != nil {
		return nil, err
	}
	rep := &CheckReport{Run: id, Checkpoint: patchstore.Entry{Commit: run.Commit, Checkpoint: run.Checkpoint}, Staged: staged}
	var changes []record.Change
	if staged {
		if rep.Git, err = g.markedOperation(ctx); err == nil {
			changes, err = g.stagedDrift(ctx, run)
		}
	} else {
		var snap *workspace.Snapshot
		if snap, err = g.ws.Snapshot(ctx); err == nil {
			rep.Git = g.snapshotOperation(snap)
			changes, err = g.db.DiffTrees(run.Checkpoint.WorktreeTree, snap.Worktree)
		}
		if err == nil {
			rep.ViewNow, err = g.ws.ViewChanges(runView(run.Checkpoint), snap.View)
		}
	}
	if err != nil {
		return nil, err
	}
	for _, c := range changes {
		rep.Drift = append(rep.Drift, Drift{Change: c, Call: coveringCall(run, c.Path)})
	}
	rep.ViewChanges = viewChangesOf(OrderedCalls(run))
	return rep, nil
}

// stagedDrift lists the staged changes (index against HEAD) whose staged
// content is not what the checkpoint recorded for the path.
func (g *Guard) stagedDrift(ctx context.Context, run *patchstore.Run) ([]record.Change, error) {
	index, err := g.ws.IndexTree(ctx)
	if err != nil {
		return nil, err
	}
	head, err := g.ws.ReadHead(ctx)
	if err != nil {
		return nil, err
	}
	var headTree record.Hash
	if !head.Commit.IsZero() {
		c, err := g.db.ReadCommit(head.Commit)
		if err != nil {
			return nil, err
		}
		headTree = c.Tree
	}
	staged, err := g.db.DiffTrees(headTree, index)
	if err != nil {
		return nil, err
	}
	var out []record.Change
	incoming := g.incoming()
	for _, s := range staged {
		rec, err := g.db.Lookup(run.Checkpoint.WorktreeTree, s.Path)
		if err != nil {
			return nil, err
		}
		if rec.State() == s.After.State() || g.broughtIn(incoming, s.Path, s.After.State()) {
			continue
		}
		if derived, err := g.derivedFrom(ctx, s.Before.State(), rec.State(), s.After.State()); err != nil {
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
func (g *Guard) derivedFrom(ctx context.Context, head, recorded, staged record.State) (bool, error) {
	if !recorded.Exists() || !staged.Exists() || !recorded.Mode.IsFile() || staged.Mode != recorded.Mode ||
		(head.Exists() && !head.Mode.IsFile()) {
		return false, nil
	}
	src := g.planSources(ctx)
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

// coveringCall names a started call whose capture includes path.
func coveringCall(run *patchstore.Run, path string) record.CallID {
	for _, c := range OrderedCalls(run) {
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
