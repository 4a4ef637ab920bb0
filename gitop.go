package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/patchstore/record"
)

// GitOperation is what git is in the middle of in this work tree: a merge,
// rebase, cherry-pick, revert, am or bisect, and the paths the index holds
// in conflict. Operation is OpNone with conflicts that git marks no
// operation for (git stash pop or apply, git checkout -m).
type GitOperation struct {
	Operation record.Operation
	Unmerged  []record.UnmergedPath
}

// InProgress reports whether there is anything to say: an operation or
// conflicts.
func (o *GitOperation) InProgress() bool {
	return o != nil && (o.Operation != record.OpNone || len(o.Unmerged) > 0)
}

// GitOperation returns what git is in the middle of in the work tree, or
// nil when nothing is. It reads the index and a few marker files in the
// worktree's git dir; it writes nothing. Snapshots, calls, undo and check
// all work during an operation and with conflicts in the index: the work
// tree is recorded as it is, markers and all, and the index is never
// written.
func (g *Guard) GitOperation(ctx context.Context) (*GitOperation, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	u, err := g.ws.Unmerged(ctx)
	if err != nil {
		return nil, err
	}
	op := &GitOperation{Operation: g.ws.Operation(ctx)}
	if u != nil {
		op.Unmerged = u.Paths
	}
	if !op.InProgress() {
		return nil, nil
	}
	return op, nil
}
