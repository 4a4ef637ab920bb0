package gitguard

import (
	"context"
	"fmt"
	"strings"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/record"
)

// An agent may commit inside a tool call (aider commits after every edit by
// default). The call then records HEAD before and after (LedgerEntry.Head);
// its patches hold the file changes as usual, so undo reverts them in the
// work tree, and history is left to the user: HeadMoves says which commits
// the agent made and which git command drops or reverts them.

// headNow reads HEAD for a call's start record; nil when it cannot be read
// (an unborn branch has no commit to return to, and a broken HEAD is
// reported by the snapshot, not here).
func (g *Guard) headNow(ctx context.Context) *record.HeadMove {
	h, err := g.ws.ReadHead(ctx)
	if err != nil || h.Commit.IsZero() {
		return nil
	}
	return &record.HeadMove{Before: h.Commit, Ref: h.Ref}
}

// headMoved completes a call's start record at its finish: After is set
// when HEAD moved. A call started on an unborn branch that committed gets
// a zero Before.
func (g *Guard) headMoved(ctx context.Context, start *record.HeadMove) *record.HeadMove {
	h, err := g.ws.ReadHead(ctx)
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

// HeadMove is a call during which HEAD moved: the agent committed (or
// reset, or switched branches) inside it.
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
}

// GitCommands returns what the user may run for the commits themselves,
// each with what it does; gitguard runs none of them.
func (m HeadMove) GitCommands() []string {
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

// HeadMoves lists the calls of run during which HEAD moved, oldest first,
// with the commits the agent made. It reads commits with git and writes
// nothing; commits gone from the repository are listed by id only.
func (g *Guard) HeadMoves(ctx context.Context, run *Run) []HeadMove {
	return headMovesOf(ctx, g, record.OrderedCalls(run.Calls))
}

// Sentence says what happened to HEAD in the call, for the resume brief.
func (m HeadMove) Sentence() string {
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

func headMovesOf[C record.Recorded](ctx context.Context, g *Guard, calls []C) []HeadMove {
	var out []HeadMove
	for _, rc := range calls {
		c := rc.Record()
		h := c.Ledger.Head
		if !h.Moved() {
			continue
		}
		m := HeadMove{Call: c.Ledger.CallID, Before: h.Before, After: *h.After, Ref: h.Ref}
		rng := m.After.String()
		if !m.Before.IsZero() {
			rng = m.Before.String() + ".." + m.After.String()
			_, err := git.Run(ctx, g.repo.WorkTree, "merge-base", "--is-ancestor", m.Before.String(), m.After.String())
			m.Descends = err == nil
		} else {
			m.Descends = true
		}
		if out, err := git.Run(ctx, g.repo.WorkTree, "log", "--format=%h %s", "--max-count=50", rng, "--"); err == nil {
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
