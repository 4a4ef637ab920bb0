package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/internal/gitstate"
	"github.com/gitguard/gitguard/record"
)

// HeadMove is a call during which HEAD moved: the agent committed (or
// reset, or switched branches) inside it. The call's patches hold its file
// changes as usual, so undo reverts them in the work tree; history is left
// to the user.
type HeadMove struct {
	Call          record.CallID
	Before, After record.Hash // Before is zero when the branch was unborn
	Ref           string      // the branch HEAD named after; empty when detached
	// Commits are the commits After has and Before has not, newest first,
	// as "<short id> <subject>"; empty when HEAD moved back or sideways.
	Commits []string
	// Descends is true when After descends from Before: the agent only
	// added commits.
	Descends bool
	// StartRef is the branch HEAD named at the start ("" detached; nil
	// when the record does not say); Tips the branch tips the call moved
	// (TipsKnown: the call's record compared them).
	StartRef  *string
	Tips      []record.TipMove
	TipsKnown bool
	// Commands are the git commands that put HEAD and the branches back
	// where the call found them (see GitCommands).
	Commands []string
}

// GitCommands returns what the user may run for the commits themselves,
// each with what it does; gitguard runs none of them.
func (m HeadMove) GitCommands() []string { return gitstate.Move(m).GitCommands() }

// Sentence says what happened to HEAD in the call, for the resume brief.
func (m HeadMove) Sentence() string { return gitstate.Move(m).Sentence() }

// HeadMoves lists the calls of run during which HEAD moved, oldest first,
// with the commits the agent made. It reads commits with git and writes
// nothing; commits gone from the repository are listed by id only.
func (g *Guard) HeadMoves(ctx context.Context, run *Run) []HeadMove {
	return headMovesOf(ctx, g, record.OrderedCalls(run.Calls))
}

func headMovesOf[C record.Recorded](ctx context.Context, g *Guard, calls []C) []HeadMove {
	var out []HeadMove
	for _, m := range gitstate.MovesOf(ctx, g.repo.WorkTree, calls) {
		out = append(out, HeadMove(m))
	}
	return out
}

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
func (o *GitOperation) InProgress() bool { return (*gitstate.Operation)(o).InProgress() }

// Sentence says, for the resume brief, what git is in the middle of and
// which paths are in conflict.
func (o *GitOperation) Sentence() string { return (*gitstate.Operation)(o).Sentence() }

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
	return gitOperation(gitstate.Now(ctx, g.ws))
}

// gitOperation is the API's view of an operation gitstate found.
func gitOperation(op *gitstate.Operation, err error) (*GitOperation, error) {
	return (*GitOperation)(op), err
}

// markedOperation is GitOperation without reading the index unless git
// marks an operation in progress (see gitstate.Marked).
func (g *Guard) markedOperation(ctx context.Context) (*GitOperation, error) {
	return gitOperation(gitstate.Marked(ctx, g.ws))
}
