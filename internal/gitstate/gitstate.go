// Package gitstate tells what happened to git's own state around the
// agent's calls: HEAD moving inside a call (the agent committed), and the
// merge, rebase or other operation in progress with its conflicts.
//
// Invariants: it reads HEAD, the index and git's marker files, and runs
// git only to read commits; it writes nothing. The git commands it names
// are for the user to run; gitguard runs none of them.
package gitstate

import (
	"context"
	"fmt"
	"strings"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// An agent may commit inside a tool call (aider commits after every edit by
// default). The call then records HEAD before and after (LedgerEntry.Head);
// its patches hold the file changes as usual, so undo reverts them in the
// work tree, and history is left to the user: HeadMoves says which commits
// the agent made and which git command drops or reverts them.

// HeadNow reads HEAD for a call's start record; nil when it cannot be read
// (an unborn branch has no commit to return to, and a broken HEAD is
// reported by the snapshot, not here).
func HeadNow(ctx context.Context, ws *workspace.Workspace) *record.HeadMove {
	h, err := ws.ReadHead(ctx)
	if err != nil || h.Commit.IsZero() {
		return nil
	}
	return &record.HeadMove{Before: h.Commit, Ref: h.Ref}
}

// HeadMoved completes a call's start record at its finish: After is set
// when HEAD moved. A call started on an unborn branch that committed gets
// a zero Before.
func HeadMoved(ctx context.Context, ws *workspace.Workspace, start *record.HeadMove) *record.HeadMove {
	h, err := ws.ReadHead(ctx)
	if err != nil || h.Commit.IsZero() {
		return start
	}
	if start == nil {
		start = &record.HeadMove{}
	}
	if h.Commit == start.Before {
		return &record.HeadMove{Before: start.Before, Ref: start.Ref}
	}
	after := h.Commit
	return &record.HeadMove{Before: start.Before, After: &after, Ref: h.Ref}
}

// Move is a call during which HEAD moved: the agent committed (or
// reset, or switched branches) inside it.
type Move struct {
	Call          record.CallID
	Before, After record.Hash // Before is zero when the branch was unborn
	Ref           string      // the branch HEAD named after; empty when detached
	// Commits are the commits After has and Before has not, newest first,
	// as "<short id> <subject>"; empty when HEAD moved back or sideways.
	Commits []string
	// Descends is true when After descends from Before: the agent only
	// added commits.
	Descends bool
}

// GitCommands returns what the user may run for the commits themselves,
// each with what it does; gitguard runs none of them.
func (m Move) GitCommands() []string {
	if m.Before.IsZero() {
		return []string{"git update-ref -d HEAD  # unborn again: drops the agent's commits, keeps the work tree"}
	}
	out := []string{fmt.Sprintf("git reset %s  # drop the agent's commits from %s, keep the work tree as it is", m.Before.Short(), refName(m.Ref))}
	if m.Descends {
		out = append(out, fmt.Sprintf("git revert --no-edit %s..%s  # keep history, add commits that revert them (on a clean work tree: before undo, or after 'git stash')",
			m.Before.Short(), m.After.Short()))
	}
	return out
}

func refName(ref string) string {
	if ref == "" {
		return "HEAD"
	}
	return strings.TrimPrefix(ref, "refs/heads/")
}

// Sentence says what happened to HEAD in the call, for the resume brief.
func (m Move) Sentence() string {
	what := fmt.Sprintf("HEAD moved from %s to %s", shortOrUnborn(m.Before), m.After.Short())
	if n := len(m.Commits); n > 0 && m.Descends {
		what = fmt.Sprintf("the agent made %d commit(s) on %s (%s..%s: %s)", n, refName(m.Ref), shortOrUnborn(m.Before),
			m.After.Short(), strings.Join(m.Commits, "; "))
	}
	return fmt.Sprintf("During %s %s; undo reverts their file changes in the work tree, not the history.", m.Call, what)
}

func shortOrUnborn(h record.Hash) string {
	if h.IsZero() {
		return "(unborn)"
	}
	return h.Short()
}

// MovesOf lists the calls during which HEAD moved, with the commits the
// agent made, read with git in the work tree at top.
func MovesOf[C record.Recorded](ctx context.Context, top string, calls []C) []Move {
	var out []Move
	for _, rc := range calls {
		c := rc.Record()
		h := c.Ledger.Head
		if !h.Moved() {
			continue
		}
		m := Move{Call: c.Ledger.CallID, Before: h.Before, After: *h.After, Ref: h.Ref}
		rng := m.After.String()
		if !m.Before.IsZero() {
			rng = m.Before.String() + ".." + m.After.String()
			_, err := git.Run(ctx, top, "merge-base", "--is-ancestor", m.Before.String(), m.After.String())
			m.Descends = err == nil
		} else {
			m.Descends = true
		}
		if out, err := git.Run(ctx, top, "log", "--format=%h %s", "--max-count=50", rng, "--"); err == nil {
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if line != "" {
					m.Commits = append(m.Commits, line)
				}
			}
		}
		out = append(out, m)
	}
	return out
}

// Operation is what git is in the middle of in this work tree: a merge,
// rebase, cherry-pick, revert, am or bisect, and the paths the index holds
// in conflict. Operation is OpNone with conflicts that git marks no
// operation for (git stash pop or apply, git checkout -m).
type Operation struct {
	Operation record.Operation
	Unmerged  []record.UnmergedPath
}

// InProgress reports whether there is anything to say: an operation or
// conflicts.
func (o *Operation) InProgress() bool {
	return o != nil && (o.Operation != record.OpNone || len(o.Unmerged) > 0)
}

// Now returns what git is in the middle of in the work tree, or
// nil when nothing is. It reads the index and a few marker files in the
// worktree's git dir; it writes nothing. Snapshots, calls, undo and check
// all work during an operation and with conflicts in the index: the work
// tree is recorded as it is, markers and all, and the index is never
// written.
func Now(ctx context.Context, ws *workspace.Workspace) (*Operation, error) {
	u, err := ws.Unmerged(ctx)
	if err != nil {
		return nil, err
	}
	op := &Operation{Operation: ws.Operation()}
	if u != nil {
		op.Unmerged = u.Paths
	}
	if !op.InProgress() {
		return nil, nil
	}
	return op, nil
}

// Marked is Now for callers that must stay cheap: it
// reads the index only when git marks an operation in progress, so it does
// not see conflicts git marks no operation for (a stash pop); a snapshot
// sees those (see FromSnapshot).
func Marked(ctx context.Context, ws *workspace.Workspace) (*Operation, error) {
	if ws.Operation() == record.OpNone {
		return nil, nil
	}
	return Now(ctx, ws)
}

// FromSnapshot is Now from a snapshot just taken, which read
// the index already.
func FromSnapshot(ws *workspace.Workspace, snap *workspace.Snapshot) *Operation {
	op := &Operation{Operation: ws.Operation()}
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
func (o *Operation) Sentence() string {
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
