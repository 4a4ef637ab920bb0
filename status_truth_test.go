package gitguard_test

import (
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/conflict"
)

// Status after undos tells the truth: a path is shown against the agent's
// patch, never against the undo's; a clean merge is merged, with the undo
// that made it; a conflict an undo left behind is still conflicted against
// the agent's call, with that undo named.
func TestStatusAfterUndo(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.txt": "1\n2\n3\n4\n5\n6\n7\n", "b.txt": "b\n", "d.txt": "d\n", "e.txt": "1\n2\n3\n",
	})
	f.call("c1", []string{"a.txt"}, func() { f.write("a.txt", "1\n2 agent\n3\n4\n5\n6\n7\n") })
	f.write("a.txt", "1\n2 agent\n3\n4\n5\n6 user\n7\n") // far from the agent's hunk
	f.call("c2", []string{"b.txt"}, func() { f.write("b.txt", "b2\n") })
	f.call("c4", []string{"d.txt", "e.txt"}, func() {
		f.write("d.txt", "d4\n")
		f.write("e.txt", "1\n2 agent\n3\n")
	})
	f.write("e.txt", "1\n2 user\n3\n") // on the agent's line

	c1, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c1.Items) != 1 || c1.Items[0].State != conflict.Merged || c1.Items[0].Action != gitguard.ActionMerge {
		t.Fatalf("undo c1: %+v, want one merged path", c1.Items)
	}
	c4, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: "c4"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := f.g.Status(f.ctx, f.run, gitguard.StatusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		state              conflict.State
		call, undone, last string
	}{
		"a.txt": {conflict.Merged, "c1", string(c1.UndoCall), string(c1.UndoCall)},
		"b.txt": {conflict.Applied, "c2", "", ""},
		"d.txt": {conflict.Reapplyable, "c4", "", string(c4.UndoCall)},
		"e.txt": {conflict.Conflicted, "c4", "", string(c4.UndoCall)},
	}
	if len(rep.Paths) != len(want) {
		t.Fatalf("status lists %d paths, want %d: %+v", len(rep.Paths), len(want), rep.Paths)
	}
	for _, p := range rep.Paths {
		w := want[p.Path]
		if p.State != w.state || string(p.Call) != w.call || string(p.UndoneBy) != w.undone || string(p.LastUndo) != w.last {
			t.Errorf("%s: %s against %s, undone by %q, last undo %q; want %s against %s, %q, %q",
				p.Path, p.State, p.Call, p.UndoneBy, p.LastUndo, w.state, w.call, w.undone, w.last)
		}
	}
	f.checkInvariant1()
}
