package undoplan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

func fileState(s string) record.State {
	return record.State{Mode: record.ModeFile, Hash: record.BlobHash([]byte(s))}
}

// TestOrder: deletes first, deepest first, then the rest, parents first,
// so that what the agent made of a path is gone before its old type comes
// back; plans that write nothing keep their place among the rest.
func TestOrder(t *testing.T) {
	t.Parallel()
	del := func(p string) record.Plan {
		return record.Plan{Path: p, Action: record.ActionDelete, Current: fileState(p)}
	}
	put := func(p string) record.Plan {
		return record.Plan{Path: p, Action: record.ActionRecreate, Target: fileState(p)}
	}
	plans := []record.Plan{
		put("a.txt"), del("a.txt/x"), del("a.txt/y/z"), // file -> folder undone
		del("dir"), put("dir/f"), put("dir/sub/g"), // folder -> symlink or file undone
		{Path: "keep", Action: record.ActionConflict}, del("z"),
	}
	var got []string
	for _, i := range Order(plans) {
		got = append(got, plans[i].Path)
	}
	want := []string{"z", "dir", "a.txt/y/z", "a.txt/x", "a.txt", "dir/f", "dir/sub/g", "keep"}
	if !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}

// TestTypeSwaps: a folder in a path's place is replaced only if all it
// holds is files the same plan deletes (empty folders included); a user's
// file, or a symlink in it, leaves it, reported. A path beneath a
// symlinked folder is written only if the plan deletes the link; else the
// plan is refused with workspace.ErrSymlinkParent.
func TestTypeSwaps(t *testing.T) {
	gittest.RequireGit(t)
	r := gittest.New(t)
	r.Write("keep.txt", "k\n")
	r.Commit("init")
	r.Write("agent/x", "x\n")
	r.Write("agent/sub/y", "y\n")
	if err := os.MkdirAll(filepath.Join(r.Dir, "agent/empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Write("mixed/x", "x\n")
	r.Write("mixed/user.txt", "mine\n")
	r.Write("linked/x", "x\n")
	r.Symlink(t.TempDir(), "linked/out")
	r.Symlink(t.TempDir(), "ln")
	ws, err := workspace.Open(context.Background(), r.Dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	p := &Planner{WS: ws}

	folder := func(path string) record.Plan {
		return record.Plan{Path: path, Action: record.ActionRecreate, Target: fileState("old"), ReplacesDir: true}
	}
	del := func(path string) record.Plan {
		return record.Plan{Path: path, Action: record.ActionDelete, Current: fileState(path)}
	}
	items := []record.Plan{
		folder("agent"), del("agent/x"), del("agent/sub/y"),
		folder("mixed"), del("mixed/x"),
		folder("linked"), del("linked/x"),
	}
	if err := p.typeSwaps(items, nil); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		left := it.Action == record.ActionConflict
		if want := it.Path == "mixed" || it.Path == "linked"; left != want {
			t.Errorf("%s: %+v, want left as it is: %v", it.Path, it, want)
		}
		if left && (it.ReplacesDir || it.Writes() || it.Reason == "") {
			t.Errorf("%s left as it is, but %+v", it.Path, it)
		}
	}

	// Beneath the link ln: written once the plan deletes ln, refused if not.
	beneath := map[string]string{"ln/f": "ln"}
	ok := []record.Plan{del("ln"), {Path: "ln/f", Action: record.ActionRecreate, Target: fileState("f")}}
	if err := p.typeSwaps(ok, beneath); err != nil || ok[1].Action != record.ActionRecreate {
		t.Errorf("beneath a link the plan deletes: %v, %+v", err, ok[1])
	}
	kept := []record.Plan{{Path: "ln/f", Action: record.ActionRecreate, Target: fileState("f")}}
	if err := p.typeSwaps(kept, beneath); !errors.Is(err, workspace.ErrSymlinkParent) {
		t.Errorf("beneath a link the plan keeps: %v, want ErrSymlinkParent", err)
	}
	gone := []record.Plan{{Path: "ln/f", Action: record.ActionSkip}}
	if err := p.typeSwaps(gone, beneath); err != nil {
		t.Errorf("nothing written beneath a link: %v", err)
	}
}
