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
	"github.com/gitguard/gitguard/internal/odb"
)

// openWS opens the workspace of the repository containing dir the way the
// gitguard command does (git.Discover, git config, core.excludesFile).
func openWS(t *testing.T, dir string, tune ...func(*Options)) *Workspace {
	t.Helper()
	ctx := context.Background()
	repo, err := git.Discover(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := repo.ReadConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db, err := odb.Open(repo.CommonDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	v, _ := cfg.Get("core.excludesFile")
	opts := Options{ExcludesFile: DefaultExcludesFile(v)}
	for _, f := range tune {
		f(&opts)
	}
	ws, err := Open(repo, db, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
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
	checkComplete(t, dir, s.IndexTree)
	checkComplete(t, dir, s.Worktree)
	return s
}

// checkComplete fails unless every tree and blob reachable from tree is in
// the object database (gitlinks name commits of other repositories).
func checkComplete(t *testing.T, dir string, tree git.Hash) {
	t.Helper()
	out, err := git.Run(context.Background(), dir, "ls-tree", "-r", "-t", "-z", tree.String())
	if err != nil {
		t.Fatalf("tree %s is incomplete: %v", tree, err)
	}
	var ids []string
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, _, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] == "commit" {
			continue
		}
		ids = append(ids, f[2])
	}
	if len(ids) == 0 {
		return
	}
	res, err := git.Cmd{Dir: dir, Args: []string{"cat-file", "--batch-check"},
		Stdin: strings.NewReader(strings.Join(ids, "\n") + "\n")}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(res), "missing") {
		t.Errorf("objects of tree %s missing from the database:\n%s", tree, res)
	}
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
	i2 := scratchIndex(t, dir)
	run(i2, "add", "-A")
	worktree = run(i2, "write-tree")
	return index, worktree
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
