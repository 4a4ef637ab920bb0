package conflict_test

import (
	"testing"

	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/record"
)

// TestPlanFolderInPlace: a folder where the agent's call left the path
// absent is the agent's new type of the path (a file or a symlink it
// turned into a folder): the plan puts the old type back in the folder's
// place (ReplacesDir), which the caller allows only once the folder is
// emptied. A folder where the agent left a file is someone else's, and a
// folder in the place of a path no call of the plan had is left alone.
func TestPlanFolderInPlace(t *testing.T) {
	t.Parallel()
	b := blobs{}
	file := b.put("a\n")
	link := record.State{Mode: record.ModeSymlink, Hash: record.BlobHash([]byte("/outside"))}
	b[link.Hash] = []byte("/outside")
	dir := conflict.Current{IsDir: true}
	for _, c := range []struct {
		name        string
		patches     []*record.FilePatch
		action      record.Action
		target      record.State
		replacesDir bool
	}{
		{name: "file made a folder", patches: []*record.FilePatch{patch("c1", file, record.State{})},
			action: conflict.Recreate, target: file, replacesDir: true},
		{name: "symlink made a folder", patches: []*record.FilePatch{patch("c1", link, record.State{})},
			action: conflict.Recreate, target: link, replacesDir: true},
		{name: "created, then made a folder", patches: []*record.FilePatch{
			patch("c1", record.State{}, file), patch("c2", file, record.State{})},
			action: conflict.Skip, target: record.State{}},
		{name: "the agent left a file", patches: []*record.FilePatch{patch("c1", record.State{}, file)},
			action: conflict.Conflict, target: record.State{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl, err := conflict.PlanPath("f.txt", c.patches, dir, false, b.sources(t))
			if err != nil {
				t.Fatal(err)
			}
			if pl.Action != c.action || pl.Target != c.target || pl.ReplacesDir != c.replacesDir || pl.Current.Exists() {
				t.Errorf("plan %+v, want action %s, target %v, replaces the folder %v", pl, c.action, c.target, c.replacesDir)
			}
			if pl.Action == conflict.Conflict && (pl.Writes() || pl.Reason == "") {
				t.Errorf("a folder left as it is: %+v", pl)
			}
		})
	}
}
