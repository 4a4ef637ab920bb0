package safewrite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// newWriter opens a Writer on a committed repository with a folder, a
// file, a symlink to a folder outside the work tree and one to the top.
func newWriter(t *testing.T) (*Writer, *gittest.Repo, string) {
	t.Helper()
	gittest.RequireGit(t)
	r := gittest.New(t)
	r.Write("dir/file.txt", "x\n")
	r.Commit("init")
	out := t.TempDir()
	r.Symlink(out, "outside") // on disk: a link to a folder outside
	r.Symlink("..", "dir/up") // on disk: dir/up -> .. (the top)
	ctx := context.Background()
	ws, err := workspace.Open(ctx, r.Dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	db, err := odb.Open(filepath.Join(r.Dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &Writer{DB: db, WS: ws, WorkTree: r.Dir}, r, out
}

func link(target string) Planned {
	return Planned{Target: record.State{Mode: record.ModeSymlink, Hash: record.BlobHash([]byte(target))}, Content: []byte(target)}
}

func file(content string) Planned {
	return Planned{Target: record.State{Mode: record.ModeFile, Hash: record.BlobHash([]byte(content))}, Content: []byte(content)}
}

func at(p string, pl Planned) Planned { pl.Path = p; return pl }

// TestCheckPlannedLinksAreData: a symlink's target is data, as git checks
// links out: undo may create a link to anywhere (outside the work tree, an
// absolute path, .git, itself, a loop). What it refuses is writing a path
// beneath a link, one it creates or one on disk it leaves in place;
// beneath a link it deletes first, the path lands in a real folder.
func TestCheckPlannedLinksAreData(t *testing.T) {
	w, _, _ := newWriter(t)
	gone := Planned{} // a delete
	for _, c := range []struct {
		name  string
		items []Planned
		bad   bool
	}{
		{name: "outside", items: []Planned{at(".env", link("../shared/.env"))}},
		{name: "absolute", items: []Planned{at("tz", link("/usr/share/zoneinfo"))}},
		{name: "into .git", items: []Planned{at("a", link(".git/hooks"))}},
		{name: "windows absolute", items: []Planned{at("a", link(`C:\Windows`))}},
		{name: "itself", items: []Planned{at("README.md", link("README.md"))}},
		{name: "loop", items: []Planned{at("a", link("b")), at("b", link("a"))}},
		{name: "loop through its folder", items: []Planned{at("d", link("d/.."))}},
		{name: "through a link on disk", items: []Planned{at("a", link("dir/up/.."))}},
		{name: "a file beside a link", items: []Planned{at("dir/new.txt", file("n\n"))}},
		{name: "beneath a link it creates", items: []Planned{at("a", link(".git")), at("a/hooks/pre-commit", file("x"))}, bad: true},
		{name: "beneath a link on disk", items: []Planned{at("outside/x", file("x"))}, bad: true},
		{name: "beneath a link on disk, deeper", items: []Planned{at("dir/up/dir/x", file("x"))}, bad: true},
		{name: "beneath a link it deletes first", items: []Planned{at("outside", gone), at("outside/x", file("x"))}},
		{name: "beneath a file it writes", items: []Planned{at("f", file("f")), at("f/x", file("x"))}, bad: true},
		{name: "a delete beneath a link", items: []Planned{at("outside/x", gone)}},
		{name: "an empty target", items: []Planned{at("a", link(""))}, bad: true},
		{name: "a NUL in the target", items: []Planned{at("a", link("a\x00b"))}, bad: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := w.CheckPlanned(c.items)
			if (err != nil) != c.bad {
				t.Fatalf("CheckPlanned: %v, want refused=%v", err, c.bad)
			}
			if err != nil && !errors.Is(err, record.ErrCorrupt) {
				t.Errorf("refusal %v does not wrap record.ErrCorrupt", err)
			}
		})
	}
}

// TestWriteLinksAnywhere: Write creates links whatever their targets, and
// still refuses a file beneath a link.
func TestWriteLinksAnywhere(t *testing.T) {
	w, _, out := newWriter(t)
	ctx := context.Background()
	for _, c := range []Planned{at(".env", link("../shared/.env")), at("tz", link("/usr/share/zoneinfo")),
		at("self", link("self")), at("a", link("b")), at("b", link("a")), at("d", link("d/.."))} {
		if err := w.Write(ctx, c.Path, c.Target, c.Content); err != nil {
			t.Fatalf("write %s -> %s: %v", c.Path, c.Content, err)
		}
		got, err := os.Readlink(filepath.Join(w.WorkTree, c.Path))
		if err != nil || got != string(c.Content) {
			t.Errorf("%s -> %q (%v), want %q", c.Path, got, err, c.Content)
		}
	}
	f := file("x")
	if err := w.Write(ctx, "outside/x", f.Target, f.Content); !errors.Is(err, workspace.ErrSymlinkParent) {
		t.Errorf("write beneath a link: %v, want ErrSymlinkParent", err)
	}
	if _, err := os.Lstat(filepath.Join(out, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was written through the link: %v", err)
	}
}

// TestRemoveDir: the folder in a path's place goes only when it holds
// nothing but folders; a file, or a symlink (never followed), keeps it.
func TestRemoveDir(t *testing.T) {
	w, r, out := newWriter(t)
	if err := os.MkdirAll(filepath.Join(r.Dir, "made/a/b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := w.RemoveDir("made"); err != nil {
		t.Fatalf("remove empty folders: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(r.Dir, "made")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("made is still there: %v", err)
	}
	if err := w.RemoveDir("made"); err != nil {
		t.Errorf("remove an absent folder: %v", err)
	}
	r.Write("kept/sub/user.txt", "mine\n")
	if err := w.RemoveDir("kept"); !errors.Is(err, ErrFolderNotEmpty) {
		t.Errorf("folder with a file: %v, want ErrFolderNotEmpty", err)
	}
	if got := r.Read("kept/sub/user.txt"); got != "mine\n" {
		t.Errorf("user file: %q", got)
	}
	if err := os.WriteFile(filepath.Join(out, "o"), []byte("o\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(r.Dir, "linked"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Symlink(out, "linked/to")
	if err := w.RemoveDir("linked"); !errors.Is(err, ErrFolderNotEmpty) {
		t.Errorf("folder with a link: %v, want ErrFolderNotEmpty", err)
	}
	if _, err := os.Stat(filepath.Join(out, "o")); err != nil {
		t.Errorf("the link's target lost a file: %v", err)
	}
	if err := w.RemoveDir("outside"); !errors.Is(err, ErrFolderNotEmpty) {
		t.Errorf("a link in the folder's place: %v, want ErrFolderNotEmpty", err)
	}
	if fi, err := os.Lstat(filepath.Join(r.Dir, "outside")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was removed: %v", err)
	}
}
