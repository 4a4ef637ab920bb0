// Package gitstate tells what happened to git's own state around the
// agent's calls: HEAD moving inside a call (the agent committed), and the
// merge, rebase or other operation in progress with its conflicts.
//
// Invariants: it reads HEAD, the index, the branches' refs and git's marker
// files, and runs git only to read commits (and refs git's files do not
// hold plainly); it writes nothing. The git commands it names
// are for the user to run; gitguard runs none of them.
package gitstate

import (
	"context"
	"fmt"
	"strings"

	"github.com/gitguard/gitguard/gitrefs"
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
// reported by the snapshot, not here). With branches (a whole-workspace
// call, which can run git) it also records the local branches' tips, so
// that the finish can tell which the call moved.
func HeadNow(ctx context.Context, ws *workspace.Workspace, refs *gitrefs.Store, branches bool) *record.HeadMove {
	h, err := ws.ReadHead(ctx)
	if err != nil || h.Commit.IsZero() || record.ValidateBranchRef(h.Ref) != nil {
		return nil // a ref the records cannot carry: HEAD is not followed
	}
	ref := h.Ref
	m := &record.HeadMove{Before: h.Commit, Ref: h.Ref, StartRef: &ref}
	if branches {
		m.Branches = Branches(ctx, refs)
	}
	return m
}

// maxBranches bounds the branch tips a call's start records: past it, the
// finish does not compare tips.
const maxBranches = 200

// Branches lists the local branches' tips, sorted by name; nil when there
// are more than maxBranches or they cannot be listed. refs reads git's ref
// files itself where it can: no git process for a call's start or finish.
func Branches(ctx context.Context, refs *gitrefs.Store) []record.BranchTip {
	heads, err := refs.Branches(ctx)
	if err != nil || len(heads) > maxBranches {
		return nil
	}
	tips := make([]record.BranchTip, 0, len(heads))
	for _, h := range heads {
		if record.ValidateBranchRef(h.Name) != nil {
			return nil
		}
		tips = append(tips, record.BranchTip{Ref: h.Name, Commit: h.Hash})
	}
	return tips
}

// HeadMoved completes a call's start record at its finish: After is set
// when HEAD moved, named another branch, or a branch tip moved (Tips, for
// calls whose start recorded the tips). A call started on an unborn branch
// that committed gets a zero Before.
func HeadMoved(ctx context.Context, ws *workspace.Workspace, refs *gitrefs.Store, start *record.HeadMove) *record.HeadMove {
	h, err := ws.ReadHead(ctx)
	if err != nil || h.Commit.IsZero() || record.ValidateBranchRef(h.Ref) != nil {
		if start != nil {
			s := *start
			s.Branches = nil
			return &s
		}
		return start
	}
	if start == nil {
		start = &record.HeadMove{}
	}
	out := &record.HeadMove{Before: start.Before, Ref: start.Ref, StartRef: start.StartRef}
	if start.Branches != nil {
		out.Tips, out.TipsKnown = tipMoves(start.Branches, Branches(ctx, refs))
	}
	if h.Commit == start.Before && h.Ref == start.Ref && len(out.Tips) == 0 {
		out.Tips, out.TipsKnown = nil, false
		return out
	}
	after := h.Commit
	out.After, out.Ref = &after, h.Ref
	return out
}

// tipMoves compares the branch tips at a call's start and finish; known is
// false when the finish could not list them.
func tipMoves(before, after []record.BranchTip) (moves []record.TipMove, known bool) {
	if after == nil {
		return nil, false
	}
	was := map[string]record.Hash{}
	for _, b := range before {
		was[b.Ref] = b.Commit
	}
	for _, a := range after {
		if old, ok := was[a.Ref]; !ok || old != a.Commit {
			moves = append(moves, record.TipMove{Ref: a.Ref, Before: old, After: a.Commit})
		}
		delete(was, a.Ref)
	}
	for _, b := range before {
		if _, gone := was[b.Ref]; gone {
			moves = append(moves, record.TipMove{Ref: b.Ref, Before: b.Commit})
		}
	}
	return moves, true
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
	// StartRef is the branch HEAD named at the start ("" detached; nil
	// when the record does not say); Tips the branch tips the call moved
	// (TipsKnown: the call's record compared them).
	StartRef  *string
	Tips      []record.TipMove
	TipsKnown bool
	// Commands are the git commands that put HEAD and the branches back
	// where the call found them, each with what it does (see GitCommands).
	Commands []string
}

// GitCommands returns what the user may run for the commits themselves,
// each with what it does; gitguard runs none of them. Run in order after
// undo, they put HEAD, the index and the branches the call moved back as
// they were at its start, and leave the work tree as undo left it.
func (m Move) GitCommands() []string {
	if m.Commands != nil {
		return m.Commands
	}
	if m.Before.IsZero() {
		return []string{"git update-ref -d HEAD  # unborn again: drops the agent's commits, keeps the work tree"}
	}
	what := "drop the agent's commits from"
	if !m.Descends {
		what = "put back where it was"
	}
	out := []string{fmt.Sprintf("git reset %s  # %s %s, keep the work tree as it is", m.Before.Short(), what, refName(m.Ref))}
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
		if !h.Changed() {
			continue
		}
		m := Move{Call: c.Ledger.CallID, Before: h.Before, After: *h.After, Ref: h.Ref, StartRef: h.StartRef, Tips: h.Tips, TipsKnown: h.TipsKnown}
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
		if !m.Before.IsZero() && (m.StartRef != nil || m.TipsKnown) {
			m.Commands = commands(ctx, top, m)
		}
		out = append(out, m)
	}
	return out
}

// commands are the git commands that put back what a call moved, from its
// record of the branch HEAD named at the start and the tips it moved.
func commands(ctx context.Context, top string, m Move) []string {
	home := m.Ref
	if m.StartRef != nil {
		home = *m.StartRef
	}
	switched := home != m.Ref
	var out []string
	if switched {
		if home == "" {
			out = append(out, fmt.Sprintf("git update-ref --no-deref HEAD %s  # HEAD detached at %s again, as when the call started", m.Before, m.Before.Short()))
		} else {
			out = append(out, fmt.Sprintf("git symbolic-ref HEAD %s  # back on %s, the branch HEAD named when the call started", shellWord(home), refName(home)))
		}
	}
	// Where the branch HEAD names again is now.
	now := m.After
	if switched {
		now = m.Before
		for _, t := range m.Tips {
			if t.Ref == home && home != "" {
				now = t.After
			}
		}
	}
	what := "the index as " + refName(home) + " has it; the work tree stays as undo left it"
	if now != m.Before {
		what = moveWords(ctx, top, refName(home), m.Before, now) + ", keep the work tree as it is"
	}
	out = append(out, fmt.Sprintf("git reset %s  # %s", m.Before.Short(), what))
	others := 0
	for _, t := range m.Tips {
		if t.Ref == home {
			continue
		}
		others++
		name := shellWord(refName(t.Ref))
		switch {
		case t.Before.IsZero():
			out = append(out, fmt.Sprintf("git branch -D %s  # delete the branch the agent created (at %s)", name, t.After.Short()))
		case t.After.IsZero():
			out = append(out, fmt.Sprintf("git branch %s %s  # recreate the branch the agent deleted", name, t.Before.Short()))
		default:
			out = append(out, fmt.Sprintf("git branch -f %s %s  # %s", name, t.Before.Short(), moveWords(ctx, top, refName(t.Ref), t.Before, t.After)))
		}
	}
	if switched && !m.TipsKnown && m.Ref != "" {
		out = append(out, fmt.Sprintf("# %s is at %s; where it was before the call was not recorded", refName(m.Ref), m.After.Short()))
	}
	if !switched && others == 0 && m.Descends {
		out = append(out, fmt.Sprintf("git revert --no-edit %s..%s  # instead of the reset: keep history, add commits that revert them (on a clean work tree: before undo, or after 'git stash')",
			m.Before.Short(), m.After.Short()))
	}
	return out
}

// moveWords says what putting branch back from now to was does.
func moveWords(ctx context.Context, top, branch string, was, now record.Hash) string {
	switch {
	case isAncestor(ctx, top, was, now):
		return "drop the agent's commits from " + branch
	case isAncestor(ctx, top, now, was):
		return "put back the commits the agent dropped from " + branch
	}
	return "put " + branch + " back where it was (drops the agent's commits, puts back those it dropped)"
}

func isAncestor(ctx context.Context, top string, a, b record.Hash) bool {
	_, err := git.Run(ctx, top, "merge-base", "--is-ancestor", a.String(), b.String())
	return err == nil
}

// shellWord quotes s for a POSIX shell when it holds anything but
// letters, digits and ./_-+@=,%.
func shellWord(s string) string {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && !strings.ContainsRune("./_-+@=,%", r) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
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
