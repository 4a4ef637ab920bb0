package gitguard_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/brief"
	"github.com/gitguard/gitguard/record"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The resume brief of a run with an undo, an undo put back by redo, a
// failed shell call whose result spans lines, a conflict left by an undo,
// a path undo would merge around the user's edit and a change outside any
// call, checked line by line against a golden file: undone calls are said
// to be gone, redone ones in effect, the undo that changed nothing is not
// mentioned, a mergeable path is not called conflicted, every bullet is
// one line.
func TestResumeBriefGolden(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "1\n2\n3\n", "m.txt": "1\n2\n3\n4\n5\n"})
	f.call("c1", []string{"a.txt"}, func() { f.write("a.txt", "a1\n") })
	f.call("c2", []string{"b.txt"}, func() { f.write("b.txt", "b2\n") })
	if _, err := f.g.CallStart(f.ctx, f.run, gitguard.CallOptions{CallID: "c3", Tool: "bash", Input: "make test\n  && make lint"}); err != nil {
		t.Fatal(err)
	}
	f.write("d.txt", "d3\n")
	if _, err := f.g.CallFinish(f.ctx, f.run, "c3", gitguard.FinishOptions{Status: record.StatusFailed, Result: "Exit code 3\nfailing\ttest"}); err != nil {
		t.Fatal(err)
	}
	f.call("c4", []string{"c.txt"}, func() { f.write("c.txt", "1\n2 agent\n3\n") })
	f.write("c.txt", "1\n2 user\n3\n")

	if res, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: "c4"}); err != nil || res.UndoCall != "" {
		t.Fatalf("undo c4: %v, recorded %q; want nothing recorded", err, res.UndoCall)
	}
	for range 2 { // c3, then c2 (c4 is passed over)
		if _, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.g.Redo(f.ctx, f.run, gitguard.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	f.write("e.txt", "by hand\n")
	// c5's edit and the user's are lines apart: undo would merge, so the
	// brief must not call the path conflicted.
	f.call("c5", []string{"m.txt"}, func() { f.write("m.txt", "1 agent\n2\n3\n4\n5\n") })
	f.write("m.txt", "1 agent\n2\n3\n4\n5 user\n")

	r, err := f.g.Resume(f.ctx, f.run, gitguard.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := brief.Text(r)
	golden := filepath.Join("testdata", "resume-brief.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("brief differs from %s (go test -run TestResumeBriefGolden -update rewrites it):\n--- got\n%s--- want\n%s", golden, got, want)
	}
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			t.Errorf("a bullet broke across lines: %q", line)
		}
	}
	f.checkInvariant1()
}
