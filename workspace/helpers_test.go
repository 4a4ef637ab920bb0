package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
)

// openWS opens the workspace of the repository containing dir the way the
// gitguard command does.
func openWS(t *testing.T, dir string, tune ...func(*Options)) *Workspace {
	t.Helper()
	var opts Options
	for _, f := range tune {
		f(&opts)
	}
	ws, err := Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// snap takes a snapshot of the repository at dir and checks invariant 1:
// refs, HEAD, the index file, the stash, reflogs, config and every work-tree
// file are byte for byte what they were. It also checks that every object
// the snapshot's trees name is in the object database.
func snap(t *testing.T, dir string) *Snapshot {
	t.Helper()
	before, err := gittest.UserState(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	s, err := openWS(t, dir).Snapshot(context.Background())
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	after, err := gittest.UserState(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Errorf("snapshot changed user state:\n%s", gittest.Diff(before, after))
	}
	gittest.CheckComplete(t, dir, s.IndexTree)
	gittest.CheckComplete(t, dir, s.Worktree)
	return s
}

// gitDir returns the absolute git dir of the worktree at dir.
func gitDir(t *testing.T, dir string) string {
	t.Helper()
	out, err := git.Run(context.Background(), dir, "rev-parse", "--path-format=absolute", "--git-dir")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// scratchIndex copies the worktree's index to a temporary file, which git
// may then rewrite freely. The copy keeps the index's mtime: git trusts an
// entry's stat data only if it is older than the index file (the racy-clean
// rule), so a fresh mtime would make git miss same-second changes.
func scratchIndex(t *testing.T, dir string) string {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), "index")
	src := filepath.Join(gitDir(t, dir), "index")
	data, err := os.ReadFile(src)
	if os.IsNotExist(err) {
		return tmp
	}
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	return tmp
}

// oracle returns what git itself records for the repository at dir: the
// tree of the index (`git write-tree`) and the tree `git add -A` stages,
// both computed on scratch copies of the index so the user's stays as is.
func oracle(t *testing.T, dir string) (index, worktree string) {
	t.Helper()
	run := func(idx string, args ...string) string {
		out, err := git.Cmd{Dir: dir, Args: args, Env: []string{"GIT_INDEX_FILE=" + idx}}.Run(context.Background())
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	i1 := scratchIndex(t, dir)
	index = run(i1, "write-tree")
	return index, addedTree(t, dir)
}

// addedTree returns the tree git add -A stages in a copy of the index: the
// work tree as git records it, a conflicted index resolved to the files as
// they are.
func addedTree(t *testing.T, dir string) string {
	t.Helper()
	env := []string{"GIT_INDEX_FILE=" + scratchIndex(t, dir)}
	var out []byte
	for _, args := range [][]string{{"add", "-A"}, {"write-tree"}} {
		var err error
		if out, err = (git.Cmd{Dir: dir, Args: args, Env: env}).Run(context.Background()); err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
	}
	return strings.TrimSpace(string(out))
}

// lsTree lists a tree recursively as `git ls-tree -r` prints it.
func lsTree(t *testing.T, dir, tree string) string {
	t.Helper()
	out, err := git.Run(context.Background(), dir, "ls-tree", "-r", tree)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// backdate sets the modification time of every file under dir (outside
// .git) to an hour ago, so that an index git writes afterwards holds no
// racily clean entries.
func backdate(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.Name() == ".git" {
			return filepath.SkipDir
		}
		if fi.Mode().IsRegular() {
			return os.Chtimes(p, old, old)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
