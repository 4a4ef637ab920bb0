package gitguard_test

import (
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
