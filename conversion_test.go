package gitguard_test

import (
	"os"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/conflict"
)

// With core.autocrlf=true files are CRLF on disk and LF in git. A
// whole-workspace call that edits one file must record it in git's form,
// and undo must write the original CRLF bytes back exactly; the file the
// agent did not touch keeps its bytes and is never rewritten.
func TestUndoKeepsCRLFBytes(t *testing.T) {
	f := newFixture(t, map[string]string{"keep.txt": "k1\nk2\n", "edit.txt": "a\nb\nc\n"})
	f.repo.Git("config", "core.autocrlf", "true")
	// Check out again so the work tree has CRLF, as a Windows user's would.
	for _, p := range []string{"keep.txt", "edit.txt"} {
		f.remove(p)
	}
	f.repo.Git("checkout", "--", ".")
	if got := f.repo.Read("edit.txt"); got != "a\r\nb\r\nc\r\n" {
		t.Fatalf("checkout with autocrlf gave %q", got)
	}
	f.reopenNewRun()
	f.state = f.userState()
	before := f.repo.Read("edit.txt")
	f.call("c1", nil, func() { f.write("edit.txt", "a\r\nB\r\nc\r\n") })
	rep, err := f.g.Status(f.ctx, f.run, gitguard.StatusOptions{Unrecorded: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Paths) != 1 || rep.Paths[0].Path != "edit.txt" || rep.Paths[0].State != conflict.Applied {
		t.Fatalf("status = %+v, want only edit.txt applied", rep.Paths)
	}
	if len(rep.Unrecorded) != 0 {
		t.Errorf("unrecorded = %+v, want none (keep.txt did not change)", rep.Unrecorded)
	}
	// The recorded after state is what git would stage.
	if want := f.repo.Git("hash-object", "edit.txt"); rep.Paths[0].After.Hash.String() != want {
		t.Errorf("after = %s, git hash-object (with filters) = %s", rep.Paths[0].After.Hash, want)
	}
	keepInfo, _ := os.Stat(f.abs("keep.txt"))
	if _, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := f.repo.Read("edit.txt"); got != before {
		t.Errorf("after undo edit.txt = %q, want the original %q", got, before)
	}
	if got := f.repo.Read("keep.txt"); got != "k1\r\nk2\r\n" {
		t.Errorf("keep.txt = %q", got)
	}
	if now, _ := os.Stat(f.abs("keep.txt")); !now.ModTime().Equal(keepInfo.ModTime()) {
		t.Error("undo rewrote keep.txt, which the agent never touched")
	}
	f.checkInvariant1()
}

// A clean/smudge filter (as Git LFS uses) stores something else than the
// work-tree bytes. gitguard records the clean form, as git stages it, and
// undo writes the smudged bytes back.
func TestFilteredFilesRecordCleanForm(t *testing.T) {
	f := newFixture(t, map[string]string{".gitattributes": "*.dat filter=fake\n", "other.txt": "x\n"})
	f.repo.Git("config", "filter.fake.clean", "sed s/^/pointer:/")
	f.repo.Git("config", "filter.fake.smudge", "sed s/^pointer://")
	f.repo.Write("big.dat", "payload\n")
	f.repo.Commit("add big.dat")
	f.reopenNewRun()
	f.state = f.userState()
	if got := f.repo.Git("cat-file", "-p", "HEAD:big.dat"); got != "pointer:payload" {
		t.Fatalf("the filter did not run: %q", got)
	}
	f.call("c1", []string{"big.dat"}, func() { f.write("big.dat", "new payload\n") })
	rep, err := f.g.Status(f.ctx, f.run, gitguard.StatusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Paths[0]
	if p.State != conflict.Applied {
		t.Fatalf("state = %s", p.State)
	}
	if got := f.repo.Git("cat-file", "-p", p.After.Hash.String()); got != "pointer:new payload" {
		t.Errorf("recorded after = %q, want the clean form", got)
	}
	if got := f.repo.Git("cat-file", "-p", p.Before.Hash.String()); got != "pointer:payload" {
		t.Errorf("recorded before = %q, want the clean form", got)
	}
	// A whole-workspace snapshot agrees with git add -A.
	run, _, err := f.g.Snapshot(f.ctx, f.run, gitguard.CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tree := f.repo.Git("rev-parse", run.Commit.String()+":worktree/big.dat"); tree != p.After.Hash.String() {
		t.Errorf("snapshot recorded big.dat as %s, want %s", tree, p.After.Hash)
	}
	if _, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: "c1"}); err != nil {
		t.Fatal(err)
	}
	if got := f.repo.Read("big.dat"); got != "payload\n" {
		t.Errorf("after undo big.dat = %q, want the smudged original", got)
	}
	if strings.Contains(f.repo.Read("big.dat"), "pointer:") {
		t.Error("undo wrote the clean form into the work tree")
	}
	f.checkInvariant1()
}
