package gitguard_test

import (
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
)

// A path-scoped call inside which the agent commits records HEAD before and
// after; a call that does not commit records no move.
func TestHeadMoveRecorded(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"})
	before := f.repo.Git("rev-parse", "HEAD")
	f.call("plain", []string{"a.txt"}, func() { f.write("a.txt", "b\n") })
	f.call("commits", []string{"a.txt"}, func() {
		f.write("a.txt", "c\n")
		f.repo.Git("commit", "-qam", "agent: c")
	})
	after := f.repo.Git("rev-parse", "HEAD")
	run, err := f.g.ReadRun(f.ctx, f.run)
	if err != nil {
		t.Fatal(err)
	}
	if h := run.Calls["plain"].Ledger.Head; h == nil || h.Moved() || h.Before.String() != before {
		t.Errorf("plain call head record %+v", h)
	}
	h := run.Calls["commits"].Ledger.Head
	if !h.Moved() || h.Before.String() != before || h.After.String() != after || h.Ref != "refs/heads/main" {
		t.Fatalf("committing call head record %+v, want %s..%s", h, before, after)
	}
	moves := f.g.HeadMoves(f.ctx, run)
	if len(moves) != 1 || moves[0].Call != "commits" || !moves[0].Descends || len(moves[0].Commits) != 1 {
		t.Fatalf("HeadMoves = %+v", moves)
	}
	// Undo reverts the file in the work tree; HEAD stays where the agent left it.
	res, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: "commits"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.HeadMoves) != 1 {
		t.Errorf("undo reports %d head moves", len(res.HeadMoves))
	}
	if got := f.repo.Read("a.txt"); got != "b\n" {
		t.Errorf("a.txt = %q after undo", got)
	}
	if got := f.repo.Git("rev-parse", "HEAD"); got != after {
		t.Errorf("undo moved HEAD to %s", got)
	}
}

// A whole-workspace call records the local branches' tips at its start and
// which it created, moved or deleted at its finish, loose or packed, as git
// lists them before and after; a branch that is a symbolic ref is listed
// too (git is asked then).
func TestHeadMoveBranchTips(t *testing.T) {
	for _, symbolic := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "symbolic"}[symbolic], func(t *testing.T) {
			f := newFixture(t, map[string]string{"a.txt": "a\n"})
			first := f.repo.Git("rev-parse", "HEAD")
			for _, b := range []string{"gone", "packed-moved", "kept"} {
				f.repo.Git("branch", b)
			}
			f.repo.Git("pack-refs", "--all")
			f.repo.Git("branch", "loose-moved")
			if symbolic {
				f.repo.Git("symbolic-ref", "refs/heads/alias", "refs/heads/main")
			}
			tips := func() map[string]string {
				m := map[string]string{}
				for _, line := range strings.Split(f.repo.Git("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/"), "\n") {
					if name, id, ok := strings.Cut(line, " "); ok {
						m[name] = id
					}
				}
				return m
			}
			before := tips()
			const id = "branches"
			f.state = f.userState() // the set-up above is the user's
			if _, err := f.g.CallStart(f.ctx, f.run, gitguard.CallOptions{CallID: id, Tool: "Bash"}); err != nil {
				t.Fatal(err)
			}
			f.checkInvariant1()
			started, err := f.g.ReadRun(f.ctx, f.run)
			if err != nil {
				t.Fatal(err)
			}
			h := started.Calls[id].Ledger.Head
			if h == nil || len(h.Branches) != len(before) {
				t.Fatalf("start recorded branches %+v, git lists %v", h, before)
			}
			for _, b := range h.Branches {
				if before[b.Ref] != b.Commit.String() {
					t.Errorf("start recorded %s at %s, git had %s", b.Ref, b.Commit, before[b.Ref])
				}
			}
			f.write("a.txt", "b\n")
			f.repo.Git("commit", "-qam", "agent: b")
			second := f.repo.Git("rev-parse", "HEAD")
			f.repo.Git("branch", "-D", "gone")
			f.repo.Git("branch", "-f", "packed-moved", second)
			f.repo.Git("branch", "-f", "loose-moved", second)
			f.repo.Git("branch", "new", first)
			f.state = f.userState() // the agent's changes
			if _, err := f.g.CallFinish(f.ctx, f.run, id, gitguard.FinishOptions{}); err != nil {
				t.Fatal(err)
			}
			after := tips()
			run, err := f.g.ReadRun(f.ctx, f.run)
			if err != nil {
				t.Fatal(err)
			}
			h = run.Calls[id].Ledger.Head
			want := map[string]bool{}
			for name, tip := range after {
				if before[name] != tip {
					want[name] = true
				}
			}
			for name := range before {
				if _, ok := after[name]; !ok {
					want[name] = true
				}
			}
			if !h.TipsKnown || len(h.Tips) != len(want) {
				t.Fatalf("finish recorded tips %+v (known %v), want moves of %v", h.Tips, h.TipsKnown, want)
			}
			for _, m := range h.Tips {
				after := ""
				if !m.After.IsZero() {
					after = m.After.String()
				}
				if !want[m.Ref] || after != tips()[m.Ref] {
					t.Errorf("recorded move %+v; git has %s at %q", m, m.Ref, tips()[m.Ref])
				}
			}
			f.checkInvariant1()
		})
	}
}
