package gitguard_test

import (
	"errors"
	"testing"

	"github.com/gitguard/gitguard"
)

// Plain undo moves back through the run: a call whose only paths left
// conflict with the user's edits is passed over (reported, not retried),
// no undo that changes nothing is recorded, and redo puts back the undos
// that changed something, newest first, until there is nothing to redo.
func TestUndoMovesPastLeftoverConflicts(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "1\n2\n3\n"})
	f.call("c1", []string{"a.txt"}, func() { f.write("a.txt", "a by c1\n") })
	f.call("c2", []string{"b.txt", "c.txt"}, func() {
		f.write("b.txt", "b by c2\n")
		f.write("c.txt", "1\n2 by c2\n3\n")
	})
	f.write("c.txt", "1\n2 by the user\n3\n") // overlaps c2's hunk

	res, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.repo.Read("b.txt"); got != "b\n" || len(res.Undone) != 1 || res.Undone[0] != "c2" || res.Conflicts != 1 {
		t.Fatalf("first undo: undone %v, conflicts %d, b.txt %q; want c2 undone, b.txt back, c.txt reported", res.Undone, res.Conflicts, got)
	}
	if got := f.repo.Read("c.txt"); got != "1\n2 by the user\n3\n" {
		t.Errorf("the user's c.txt changed: %q", got)
	}

	res, err = f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Undone) != 1 || res.Undone[0] != "c1" || f.repo.Read("a.txt") != "a\n" {
		t.Fatalf("second undo: undone %v, a.txt %q; want c1 undone and a.txt back", res.Undone, f.repo.Read("a.txt"))
	}
	if len(res.Passed) != 1 || res.Passed[0].Call != "c2" || len(res.Passed[0].Left) != 1 || res.Passed[0].Left[0].Path != "c.txt" {
		t.Errorf("second undo passed over %+v, want c2 with c.txt left", res.Passed)
	}

	res, err = f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{})
	if err != nil || res.UndoCall != "" || len(res.Undone) != 0 || res.Conflicts != 1 ||
		len(res.Passed) != 1 || res.Passed[0].Call != "c2" || res.Passed[0].Left[0].Path != "c.txt" {
		t.Fatalf("third undo: %+v, %v; want nothing done, c.txt of c2 reported left", res, err)
	}
	run, err := f.g.ReadRun(f.ctx, f.run)
	if err != nil {
		t.Fatal(err)
	}
	undos := 0
	for _, c := range run.Calls {
		if c.Ledger.ToolName == gitguard.ToolUndo {
			undos++
			if len(c.Patches) == 0 {
				t.Errorf("undo call %s changed nothing but was recorded", c.Ledger.CallID)
			}
		}
	}
	if undos != 2 {
		t.Errorf("%d undo calls recorded, want 2", undos)
	}

	if _, err := f.g.Redo(f.ctx, f.run, gitguard.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := f.repo.Read("a.txt"); got != "a by c1\n" {
		t.Errorf("first redo: a.txt %q, want c1's edit back", got)
	}
	if _, err := f.g.Redo(f.ctx, f.run, gitguard.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := f.repo.Read("b.txt"); got != "b by c2\n" {
		t.Errorf("second redo: b.txt %q, want c2's edit back", got)
	}
	if _, err := f.g.Redo(f.ctx, f.run, gitguard.UndoOptions{}); !errors.Is(err, gitguard.ErrNothingToUndo) {
		t.Errorf("third redo: %v, want nothing to redo", err)
	}
	if got := f.repo.Read("c.txt"); got != "1\n2 by the user\n3\n" {
		t.Errorf("the user's c.txt changed: %q", got)
	}
	f.checkInvariant1()
}
