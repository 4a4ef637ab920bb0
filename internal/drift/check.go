package drift

import (
	"context"

	"github.com/gitguard/gitguard/internal/gitstate"
	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/internal/settings"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// Found is what Check found.
type Found struct {
	Changes []record.Change
	// Git is the merge, rebase or other operation in progress; nil for
	// none.
	Git *gitstate.Operation
	// ViewNow names what differs now from the view the run started with
	// (not with staged).
	ViewNow []string
}

// Check compares the work tree (with staged, the changes staged in the
// index, see Staged) against run's newest checkpoint. Without staged it
// takes a snapshot, whose objects it writes.
func (d *Checker) Check(ctx context.Context, run *patchstore.Run, staged bool) (Found, error) {
	var f Found
	var err error
	if staged {
		if f.Git, err = gitstate.Marked(ctx, d.WS); err == nil {
			f.Changes, err = d.Staged(ctx, run)
		}
		return f, err
	}
	var snap *workspace.Snapshot
	if snap, err = d.WS.Snapshot(ctx); err != nil {
		return f, err
	}
	f.Git = gitstate.FromSnapshot(d.WS, snap)
	if f.Changes, err = d.DB.DiffTrees(run.Checkpoint.WorktreeTree, snap.Worktree); err != nil {
		return f, err
	}
	f.ViewNow, err = d.WS.ViewChanges(settings.RunView(run.Checkpoint), snap.View)
	return f, err
}

// UnrecordedNow takes a snapshot of the work tree and lists the changes
// since run's newest checkpoint that no call of the run recorded (see
// Unrecorded; touched is the run's path index, read with reader when
// nil), and what git is in the middle of.
func (d *Checker) UnrecordedNow(ctx context.Context, run *patchstore.Run, touched map[string][]patchstore.Posting, reader *runread.Reader) ([]record.Change, *gitstate.Operation, error) {
	snap, err := d.WS.Snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	op := gitstate.FromSnapshot(d.WS, snap)
	if touched == nil {
		if touched, err = reader.PathIndex(run); err != nil {
			return nil, op, err
		}
	}
	changes, err := Unrecorded(d.DB, run.Checkpoint.WorktreeTree, snap.Worktree, touched)
	return changes, op, err
}
