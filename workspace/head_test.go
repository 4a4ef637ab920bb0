package workspace

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// TestReadHeadMatchesGit checks HEAD read from files against git rev-parse
// for an unborn branch, a loose branch, a packed branch, a detached HEAD
// and a symbolic-ref chain (which goes to git).
func TestReadHeadMatchesGit(t *testing.T) {
	gittest.RequireGit(t)
	r := gittest.New(t)
	check := func(name string, wantRef string) {
		t.Helper()
		h, err := openWS(t, r.Dir).ReadHead(context.Background())
		if err != nil {
			t.Fatalf("%s: ReadHead: %v", name, err)
		}
		var want record.Hash
		if out, err := git.Run(context.Background(), r.Dir, "rev-parse", "-q", "--verify", "HEAD^{commit}"); err == nil {
			want, _ = record.ParseHash(string(out[:40]))
		}
		if h.Commit != want || h.Ref != wantRef {
			t.Errorf("%s: got %s %q, want %s %q", name, h.Commit, h.Ref, want, wantRef)
		}
	}
	check("unborn", "refs/heads/main")
	r.Write("a.txt", "a\n")
	r.Commit("one")
	check("loose", "refs/heads/main")
	r.Git("pack-refs", "--all")
	check("packed", "refs/heads/main")
	r.Write("a.txt", "b\n")
	r.Commit("two") // loose again, newer than the packed entry
	check("loose over packed", "refs/heads/main")
	r.Git("checkout", "-q", "--detach")
	check("detached", "")
	r.Git("checkout", "-q", "main")
	r.Git("symbolic-ref", "refs/heads/alias", "refs/heads/main")
	r.Git("symbolic-ref", "HEAD", "refs/heads/alias")
	check("symref chain", "refs/heads/alias")
	r.Git("symbolic-ref", "HEAD", "refs/heads/none")
	check("unborn other branch", "refs/heads/none")
}

// TestCacheTreeIndexTree checks that the index tree taken from the
// cache-tree extension is git's write-tree, and that an invalidated
// cache-tree is not used.
func TestCacheTreeIndexTree(t *testing.T) {
	gittest.RequireGit(t)
	r := gittest.New(t)
	r.Write("a/b.txt", "b\n")
	r.Write("c.txt", "c\n")
	r.Commit("one")
	idx, err := readIndexFile(filepath.Join(gitDir(t, r.Dir), "index"))
	if err != nil {
		t.Fatal(err)
	}
	h, ok := cachedIndexTree(idx)
	if want := r.Git("write-tree"); !ok || h.String() != want {
		t.Fatalf("cache-tree root = %s, %v; want %s", h, ok, want)
	}
	r.Write("a/d.txt", "d\n")
	r.Git("add", "a/d.txt") // invalidates the root and a/
	idx, err = readIndexFile(filepath.Join(gitDir(t, r.Dir), "index"))
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := cachedIndexTree(idx); ok {
		t.Fatalf("invalidated cache-tree used: %s", h)
	}
	s := snap(t, r.Dir)
	if want := r.Git("write-tree"); s.IndexTree.String() != want {
		t.Errorf("IndexTree = %s, want %s", s.IndexTree, want)
	}
}

// TestProgressFinalReport checks that a snapshot with a progress callback
// ends with one Done report whose counts agree with the snapshot's Stats.
func TestProgressFinalReport(t *testing.T) {
	gittest.RequireGit(t)
	r := gittest.New(t)
	r.Write("a/b.txt", "b\n")
	r.Write("c.txt", "c\n")
	r.Commit("one")
	r.Write("a/new.txt", "new\n")
	r.Write("c.txt", "changed\n")
	ws := openWS(t, r.Dir)
	var reports []Progress
	ws.opts.Progress = func(p Progress) { reports = append(reports, p) }
	s, err := ws.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) == 0 || !reports[len(reports)-1].Done {
		t.Fatalf("no final report: %+v", reports)
	}
	for _, p := range reports[:len(reports)-1] {
		if p.Done {
			t.Errorf("Done before the end: %+v", reports)
		}
	}
	last := reports[len(reports)-1]
	st := s.Stats
	if last.Entries != st.Tracked+st.Untracked || last.Tracked != st.Tracked || last.Dirs != st.Dirs || last.Hashed != st.Hashed {
		t.Errorf("final report %+v disagrees with stats %+v", last, st)
	}
}
