package gitguard_test

import (
	"os"
	"testing"

	"github.com/gitguard/gitguard"
)

// Undoing a file the agent created in a folder it created removes the
// folder too; a folder that was there before stays, even when empty.
func TestUndoRemovesFoldersTheAgentCreated(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n", "docs/old.md": "old\n"})
	f.call("c1", nil, func() {
		f.write("docs new/deep/guide.md", "guide\n")
		f.write("docs/new.md", "new\n")
		f.remove("docs/old.md")
	})
	res, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(f.abs("docs new")); !os.IsNotExist(err) {
		t.Errorf("folder the agent created is still there (removed %v): %v", res.RemovedDirs, err)
	}
	if got := f.repo.Read("docs/old.md"); got != "old\n" {
		t.Errorf("docs/old.md = %q", got)
	}
	if _, err := os.Lstat(f.abs("docs/new.md")); !os.IsNotExist(err) {
		t.Errorf("docs/new.md still there: %v", err)
	}
	if len(res.RemovedDirs) != 2 || res.RemovedDirs[0] != "docs new" || res.RemovedDirs[1] != "docs new/deep" {
		t.Errorf("removed %v, want [docs new, docs new/deep]", res.RemovedDirs)
	}
	if out := f.repo.Git("status", "--porcelain"); out != "" {
		t.Errorf("work tree not back to HEAD after undo:\n%s", out)
	}
	// Redo puts the folder and its file back.
	if _, err := f.g.Redo(f.ctx, f.run, gitguard.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := f.repo.Read("docs new/deep/guide.md"); got != "guide\n" {
		t.Errorf("after redo guide.md = %q", got)
	}
	f.checkInvariant1()
}

// An agent that ran git rm: undo brings the file back, leaves the index
// alone, and says which git command makes the index agree.
func TestUndoNamesTheIndexFix(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	f.call("c1", nil, func() { f.repo.Git("rm", "-q", "a.txt") })
	f.state = f.userState() // the agent's git rm changed the index; undo must not
	res, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.repo.Read("a.txt"); got != "a\n" {
		t.Fatalf("a.txt = %q after undo", got)
	}
	if len(res.IndexNotes) != 1 || res.IndexNotes[0].Path != "a.txt" || res.IndexNotes[0].Fix != "git restore --staged -- a.txt" {
		t.Fatalf("index notes %+v, want a.txt with git restore --staged", res.IndexNotes)
	}
	if out := f.repo.Git("status", "--porcelain"); out != "D  a.txt\n?? a.txt" && out != "D  a.txt\n?? a.txt\n" {
		t.Errorf("git status before the fix:\n%s", out)
	}
	f.checkInvariant1()
	f.repo.Git("restore", "--staged", "--", "a.txt")
	if out := f.repo.Git("status", "--porcelain"); out != "" {
		t.Errorf("the fix undo named does not make the index agree:\n%s", out)
	}
}
