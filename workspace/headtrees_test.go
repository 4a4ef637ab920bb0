package workspace

import (
	"context"
	"errors"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// A snapshot taken to be compared with HEAD keeps in memory the index's
// tree of every folder that changed, which is HEAD's where nothing is
// staged, and not the trees of unchanged folders; without the context it
// keeps none. A folder whose index tree is not HEAD's (a staged change)
// does not get HEAD's tree kept.
func TestSnapshotKeepsHeadTreesToCompare(t *testing.T) {
	setup := func(t *testing.T, staged bool) *gittest.Repo {
		r := gittest.New(t)
		r.Write("a/x.txt", "x\n")
		r.Write("a/b/y.txt", "y\n")
		r.Write("a/b/c/z.txt", "z\n")
		r.Write("c/w.txt", "w\n")
		r.Write("s/v.txt", "v\n")
		r.Git("add", "-A")
		r.Git("commit", "-q", "-m", "folders")
		r.Git("gc", "-q") // HEAD's trees packed, as in a real repository
		r.Write("a/b/y.txt", "y changed\n")
		r.Write("a/new.txt", "untracked\n")
		r.Write("n/new.txt", "a new folder\n")
		if staged {
			r.Write("s/v.txt", "v staged\n")
			r.Git("add", "s/v.txt")
			r.Git("write-tree") // the cache-tree names the staged tree
			r.Write("s/v.txt", "v staged, then changed\n")
		}
		return r
	}
	kept := func(t *testing.T, ws *Workspace, r *gittest.Repo, dir string) bool {
		t.Helper()
		h, err := record.ParseHash(r.Git("rev-parse", "HEAD:"+dir))
		if err != nil {
			t.Fatal(err)
		}
		err = ws.db.Restore(h)
		if err != nil && !errors.Is(err, odb.ErrCannotRestore) {
			t.Fatal(err)
		}
		return err == nil
	}
	check := func(t *testing.T, r *gittest.Repo, forHead bool, want map[string]bool) {
		t.Helper()
		before, err := gittest.UserState(r.Dir, true)
		if err != nil {
			t.Fatal(err)
		}
		ws := openWS(t, r.Dir)
		snapshot := ws.Snapshot
		if forHead {
			snapshot = ws.SnapshotForHead
		}
		if _, err := snapshot(context.Background()); err != nil {
			t.Fatal(err)
		}
		if after, err := gittest.UserState(r.Dir, true); err != nil || after != before {
			t.Fatalf("invariant 1 broken by the snapshot (%v):\n%s", err, gittest.Diff(before, after))
		}
		for dir, w := range want {
			if got := kept(t, ws, r, dir); got != w {
				t.Errorf("HEAD's tree of %q kept: %v, want %v", dir, got, w)
			}
		}
		if err := ws.db.Sync(); err != nil {
			t.Fatal(err)
		}
		r.Git("fsck", "--strict")
		checkOracle(t, r.Dir)
	}
	check(t, setup(t, false), true, map[string]bool{
		"": true, "a": true, "a/b": true, // changed
		"a/b/c": false, "c": false, "s": false, // unchanged
	})
	check(t, setup(t, false), false, map[string]bool{"": false, "a": false, "a/b": false})
	check(t, setup(t, true), true, map[string]bool{"s": false, "a": true})
}
