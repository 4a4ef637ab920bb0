package gitguard_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/conflict"
)

func TestCountPatchLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		patch    string
		add, del int
	}{
		{"empty", "", 0, 0},
		{"headers only", "diff --git a/x b/x\nnew file mode 100644\nindex 0000000..e69de29\n", 0, 0},
		{"one hunk", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", 1, 1},
		// Content lines that look like headers are counted: "+++" in a hunk is an added "++".
		{"header-like content", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n----\n+++\n", 1, 1},
		{"no newline marker", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n", 1, 1},
		{"two files", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+a\ndiff --git a/y b/y\n--- a/y\n+++ b/y\n@@ -1 +0,0 @@\n-b\n", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			add, del := gitguard.CountPatchLines([]byte(tc.patch))
			if add != tc.add || del != tc.del {
				t.Errorf("CountPatchLines = +%d -%d, want +%d -%d", add, del, tc.add, tc.del)
			}
		})
	}
}

// TestInspectCallMatchesUndoDryRun: the plan an interactive view shows is
// the plan Undo would carry out, for applied, conflicted (merge), created
// and overlapping paths, with markers off and on; and inspecting writes
// nothing.
func TestInspectCallMatchesUndoDryRun(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "x\ny\nz\n", "c.txt": "keep\n"})
	f.call("c1", []string{"a.txt", "b.txt", "new.txt", "c.txt"}, func() {
		f.write("a.txt", "one\nTWO\nthree\n")
		f.write("b.txt", "x\ny\nz\nagent\n")
		f.write("new.txt", "created\n")
		f.write("c.txt", "agent\n")
	})
	f.write("b.txt", "user\nx\ny\nz\nagent\n") // mergeable
	f.write("c.txt", "user\n")                 // overlapping
	before := f.hashObject("b.txt") + f.hashObject("c.txt") + f.hashObject("a.txt")
	_, calls, err := f.g.Ledger(f.ctx, f.run)
	if err != nil {
		t.Fatal(err)
	}
	var c1 = calls[len(calls)-1]
	for _, markers := range []bool{false, true} {
		in, err := f.g.InspectCall(f.ctx, c1, gitguard.InspectOptions{Plan: true, Markers: markers})
		if err != nil {
			t.Fatal(err)
		}
		dry, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: "c1", DryRun: true, Markers: markers})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(dry.Items, in.Plan, cmpopts.IgnoreUnexported(gitguard.UndoItem{})); diff != "" {
			t.Errorf("markers %v: InspectCall plan differs from Undo dry run (-undo +inspect):\n%s", markers, diff)
		}
		got := map[string]conflict.State{}
		for _, p := range in.Patches {
			got[p.Path] = p.State
		}
		want := map[string]conflict.State{"a.txt": conflict.Applied, "b.txt": conflict.Conflicted,
			"c.txt": conflict.Conflicted, "new.txt": conflict.Applied}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("states (-want +got):\n%s", diff)
		}
		if in.Added != 4 || in.Removed != 2 {
			t.Errorf("counts +%d -%d, want +4 -2", in.Added, in.Removed)
		}
	}
	if after := f.hashObject("b.txt") + f.hashObject("c.txt") + f.hashObject("a.txt"); after != before {
		t.Fatal("InspectCall changed a file")
	}
	f.checkInvariant1()
}

func TestRuns(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"})
	runs, err := f.g.Runs(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].ID != f.run || !runs[0].Active || runs[0].Finished || runs[0].Tip.IsZero() {
		t.Fatalf("Runs = %+v", runs)
	}
	tip := runs[0].Tip
	f.call("c1", []string{"a.txt"}, func() { f.write("a.txt", "b\n") })
	if _, err := f.g.FinishRun(f.ctx, f.run, gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	runs, err = f.g.Runs(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].Active || !runs[0].Finished || runs[0].Tip == tip {
		t.Fatalf("after a call and finish: %+v", runs[0])
	}
	if got := f.repo.Git("rev-parse", "refs/agent-checkpoints/runs/"+string(f.run)); got != runs[0].Tip.String() {
		t.Fatalf("Tip %s, git says %s", runs[0].Tip, got)
	}
}
