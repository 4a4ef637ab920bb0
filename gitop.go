package gitguard

import (
	"context"
	"fmt"
	"strings"

	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
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
	op := &GitOperation{Operation: g.ws.Operation()}
	if u != nil {
		op.Unmerged = u.Paths
	}
	if !op.InProgress() {
		return nil, nil
	}
	return op, nil
}

// markedOperation is GitOperation for callers that must stay cheap: it
// reads the index only when git marks an operation in progress, so it does
// not see conflicts git marks no operation for (a stash pop); a snapshot
// sees those (see snapshotOperation).
func (g *Guard) markedOperation(ctx context.Context) (*GitOperation, error) {
	if g.ws.Operation() == record.OpNone {
		return nil, nil
	}
	return g.GitOperation(ctx)
}

// snapshotOperation is GitOperation from a snapshot just taken, which read
// the index already.
func (g *Guard) snapshotOperation(snap *workspace.Snapshot) *GitOperation {
	op := &GitOperation{Operation: g.ws.Operation()}
	if snap.Unmerged != nil {
		op.Unmerged = snap.Unmerged.Paths
	}
	if !op.InProgress() {
		return nil
	}
	return op
}

// Sentence says, for the resume brief, what git is in the middle of and
// which paths are in conflict.
func (o *GitOperation) Sentence() string {
	what := "There are conflicts with no merge, rebase or cherry-pick in progress (as git stash pop leaves them)"
	cont := ""
	switch o.Operation {
	case record.OpNone:
	case record.OpAm:
		what, cont = "git am is in progress", "git am --continue"
	case record.OpBisect:
		what = "A bisect is in progress"
	default:
		what, cont = fmt.Sprintf("A %s is in progress", o.Operation), fmt.Sprintf("git %s --continue", o.Operation)
	}
	if len(o.Unmerged) == 0 {
		return what + "; no conflicts are left in the index."
	}
	names := make([]string, 0, len(o.Unmerged))
	for i, p := range o.Unmerged {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(o.Unmerged)-10))
			break
		}
		names = append(names, fmt.Sprintf("%s (%s)", p.Path, p.Conflict()))
	}
	s := fmt.Sprintf("%s with %d unmerged path(s): %s. Resolving a conflict means editing the file until no conflict markers are left; git add marks it resolved",
		what, len(o.Unmerged), strings.Join(names, ", "))
	if cont != "" {
		s += ", and " + cont + " goes on once all are"
	}
	return s + "."
}
