package workspace

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitguard/gitguard/internal/gittest"
)

// TestDaemonUnmerged: during a merge stopped on conflicts, a watch daemon's
// snapshots record what a full walk records, the unmerged record included,
// whether they come from a walk or from the watcher; and a git add that
// resolves a path is seen.
func TestDaemonUnmerged(t *testing.T) {
	r := gittest.New(t)
	conflictedMerge(t, r)
	d := startDaemon(t, r.Dir)
	client := openWS(t, r.Dir, useDaemon)
	ctx := context.Background()
	before, err := gittest.UserState(r.Dir, true)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string) {
		t.Helper()
		got, err := client.Snapshot(ctx)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want := fullWalk(t, r.Dir)
		sameSnapshot(t, client, what, got, want)
		if diff := cmp.Diff(want.Unmerged, got.Unmerged); diff != "" {
			t.Fatalf("%s: unmerged record (-full walk +daemon):\n%s", what, diff)
		}
	}
	check("armed")
	after, err := gittest.UserState(r.Dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Fatalf("the daemon changed the user's state:\n%s", gittest.Diff(before, after))
	}
	r.Write("a.txt", "resolved\n")
	check("a.txt resolved in the work tree")
	if st := d.Status(); st.Watched == 0 {
		t.Errorf("daemon status %+v: the edit was not served from the watcher", st)
	}
	r.Git("add", "a.txt")
	check("a.txt staged")
	if s := fullWalk(t, r.Dir); s.Unmerged == nil || len(s.Unmerged.Paths) != 2 {
		t.Errorf("after git add a.txt: unmerged %+v, want dir/b.txt and new.txt", s.Unmerged)
	}
}
