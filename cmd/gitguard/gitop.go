package main

import (
	"context"
	"fmt"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// operationName is the operation as a phrase: "a merge", "a rebase", or,
// for conflicts git marks no operation for, where they come from.
func operationName(op record.Operation) string {
	switch op {
	case record.OpMerge:
		return "a merge"
	case record.OpRebase:
		return "a rebase"
	case record.OpCherryPick:
		return "a cherry-pick"
	case record.OpRevert:
		return "a revert"
	case record.OpAm:
		return "git am"
	case record.OpBisect:
		return "a bisect"
	}
	return "conflicts with no merge, rebase or cherry-pick in progress (git stash pop or apply leaves these)"
}

// operationNextStep says how to go on once the conflicts are resolved, and
// how to give up, in git's own words.
func operationNextStep(op record.Operation) string {
	switch op {
	case record.OpMerge:
		return "resolve each path, 'git add' it, then 'git merge --continue' (or 'git merge --abort')"
	case record.OpRebase:
		return "resolve each path, 'git add' it, then 'git rebase --continue' (or '--skip', '--abort')"
	case record.OpCherryPick:
		return "resolve each path, 'git add' it, then 'git cherry-pick --continue' (or '--skip', '--abort')"
	case record.OpRevert:
		return "resolve each path, 'git add' it, then 'git revert --continue' (or '--skip', '--abort')"
	case record.OpAm:
		return "resolve each path, 'git add' it, then 'git am --continue' (or '--skip', '--abort')"
	case record.OpBisect:
		return "mark the commit with 'git bisect good' or 'git bisect bad'; 'git bisect reset' ends it"
	}
	return "resolve each path and 'git add' it (or 'git restore --staged' it to leave it unstaged); a stash that failed to pop is kept: 'git stash drop' it once done"
}

// printGitOperation tells what git is in the middle of and which paths are
// in conflict, and that gitguard records the resolution like any edit.
func printGitOperation(e *env, op *gitguard.GitOperation) {
	if !op.InProgress() {
		return
	}
	if op.Operation != record.OpNone {
		e.printf("%s is in progress", capitalize(operationName(op.Operation)))
	} else {
		e.printf("%s", capitalize(operationName(op.Operation)))
	}
	if len(op.Unmerged) == 0 {
		e.printf(" (no conflicts left in the index)\n")
		return
	}
	e.printf(": %d path(s) unmerged; %s\n", len(op.Unmerged), operationNextStep(op.Operation))
	for _, p := range op.Unmerged {
		e.printf("  %s:\t%s\n", p.Conflict(), record.QuotePath(p.Path))
	}
}

// unmergedSummary is one line on the conflicts a checkpoint recorded.
func unmergedSummary(u *record.Unmerged) string {
	if u.Operation == record.OpNone {
		return fmt.Sprintf("%d path(s), with no merge, rebase or cherry-pick in progress (as git stash pop or apply leaves them)", len(u.Paths))
	}
	return fmt.Sprintf("%d path(s), during %s", len(u.Paths), operationName(u.Operation))
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// printUnmerged lists the conflicts a checkpoint recorded: each path, how
// git saw it, and its stages (1 base, 2 ours, 3 theirs).
func printUnmerged(e *env, u *record.Unmerged) {
	if u == nil {
		return
	}
	e.printf("unmerged: %s\n", unmergedSummary(u))
	for _, p := range u.Paths {
		e.printf("  %s:\t%s\n", p.Conflict(), record.QuotePath(p.Path))
		for _, s := range p.Stages {
			e.printf("    stage %d (%s) %s %s\n", s.Stage, stageName(s.Stage), s.Mode, s.Hash.Short())
		}
	}
}

func stageName(n int) string {
	switch n {
	case 1:
		return "base"
	case 2:
		return "ours"
	}
	return "theirs"
}

// sayOperationBeforeHistory warns, after an undo that reverted calls which
// moved HEAD, that git is mid-operation: the reset or revert printed for
// those commits must wait until the operation is finished or aborted.
func sayOperationBeforeHistory(ctx context.Context, e *env, g *gitguard.Guard, res *gitguard.UndoResult) {
	if res.DryRun || len(res.HeadMoves) == 0 {
		return
	}
	op, err := g.GitOperation(ctx)
	if err != nil || op == nil {
		return
	}
	switch op.Operation {
	case record.OpMerge, record.OpRebase, record.OpCherryPick, record.OpRevert, record.OpAm:
		e.say("%s is in progress: finish it, or abort it ('git %s --abort' returns to where it started), before you reset or revert those commits",
			capitalize(operationName(op.Operation)), op.Operation)
	}
}
