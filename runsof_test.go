package gitguard_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// RunsOf, which reads the records of unfinished runs only, lists what
// ListRuns says: the runs with the prefix, of this work tree, not
// finished, newest activity first; a run finished and then continued (a
// Codex session's next turn) is listed again.
func TestRunsOfMatchesListRuns(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	ctx := context.Background()
	g, err := gitguard.Open(ctx, r.Dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	call := func(run record.RunID, id record.CallID) {
		t.Helper()
		if _, err := g.CallStart(ctx, run, gitguard.CallOptions{CallID: id, Tool: "Edit", Paths: []string{"a.txt"}}); err != nil {
			t.Fatal(err)
		}
		r.Write("a.txt", string(run)+" "+string(id)+"\n")
		if _, err := g.CallFinish(ctx, run, id, gitguard.FinishOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	finish := func(run record.RunID) {
		t.Helper()
		if _, err := g.FinishRun(ctx, run, gitguard.CheckpointOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	call("cc-finished", "c1")
	finish("cc-finished")
	call("cc-open", "c1")
	call("cx-other", "c1")
	call("cc-again", "c1")
	finish("cc-again")
	call("cc-again", "c2")
	call("cc-open-too", "c1")
	all, err := g.ListRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"cc-", "cx-", "", "none-"} {
		var want []record.RunID
		for _, info := range all {
			if strings.HasPrefix(string(info.ID), prefix) && !info.Finished {
				want = append(want, info.ID)
			}
		}
		got, err := g.RunsOf(ctx, prefix)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("RunsOf(%q) = %v, ListRuns says %v", prefix, got, want)
		}
	}
	if got, _ := g.RunsOf(ctx, "cc-"); !slices.Contains(got, "cc-again") || slices.Contains(got, "cc-finished") || len(got) != 3 {
		t.Errorf("RunsOf(cc-) = %v, want cc-again, cc-open and cc-open-too", got)
	}
}

// A run's finish is read from its tip commit once per process: a Guard of
// another repository, where the commit is not, answers from memory, while
// a commit never read is still read (and, missing, not finished).
func TestFinishedAtReadOncePerProcess(t *testing.T) {
	ctx := context.Background()
	open := func(r *gittest.Repo) *gitguard.Guard {
		t.Helper()
		r.Write("a.txt", "a\n")
		r.Commit("init")
		g, err := gitguard.Open(ctx, r.Dir, gitguard.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		return g
	}
	g := open(gittest.New(t))
	if _, err := g.CallStart(ctx, "memo-run", gitguard.CallOptions{CallID: "c1", Tool: "Edit", Paths: []string{"a.txt"}}); err != nil {
		t.Fatal(err)
	}
	started := mustTip(t, g, "memo-run")
	if _, err := g.FinishRun(ctx, "memo-run", gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	finished := mustTip(t, g, "memo-run")
	at := gitguard.StoreOf(g).FinishedAt(finished)
	if at.IsZero() {
		t.Fatal("the run's finish is not seen on its tip")
	}
	other := gitguard.StoreOf(open(gittest.New(t)))
	if got := other.FinishedAt(finished); !got.Equal(at) {
		t.Errorf("FinishedAt where the commit is not = %v, want %v from memory", got, at)
	}
	if got := other.FinishedAt(started); !got.IsZero() {
		t.Errorf("FinishedAt of a commit never read, missing = %v, want zero", got)
	}
}

// mustTip returns run's tip commit.
func mustTip(t *testing.T, g *gitguard.Guard, run record.RunID) record.Hash {
	t.Helper()
	tip, err := g.RunTip(context.Background(), run)
	if err != nil || tip.IsZero() {
		t.Fatalf("tip of %s: %v, %v", run, tip, err)
	}
	return tip
}
