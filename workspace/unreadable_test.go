package workspace

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
	"github.com/google/go-cmp/cmp"
)

// unreadableRepo commits a.txt, d/t.txt and e/u.txt, then takes away read
// permission the way an agent's shell can: a tracked file (a.txt, edited
// first), a tracked folder (d), a tracked folder it may list but not enter
// (e), an untracked file (f.txt) and an untracked folder (secret). b.txt is
// a readable new file. Permissions come back at cleanup.
func unreadableRepo(t *testing.T) *gittest.Repo {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("file permissions do not make files unreadable on Windows")
	}
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Write("d/t.txt", "t\n")
	r.Write("e/u.txt", "u\n")
	r.Commit("init")
	r.Write("a.txt", "a changed\n")
	r.Write("b.txt", "b\n")
	r.Write("f.txt", "f\n")
	r.Write("secret/s.txt", "s\n")
	modes := map[string]os.FileMode{"a.txt": 0, "f.txt": 0, "d": 0, "secret": 0, "e": 0o644}
	for p, m := range modes {
		r.Chmod(p, m)
	}
	t.Cleanup(func() {
		for p := range modes {
			os.Chmod(filepath.Join(r.Dir, p), 0o755)
		}
	})
	return r
}

// wantUnreadable is what a snapshot of unreadableRepo skips.
var wantUnreadable = []record.Skipped{
	{Path: "a.txt", Reason: ReasonUnreadableFile},
	{Path: "d", Reason: ReasonUnreadableFolder},
	{Path: "e/u.txt", Reason: ReasonUnreadableFile},
	{Path: "f.txt", Reason: ReasonUnreadableFile},
	{Path: "secret", Reason: ReasonUnreadableFolder},
}

// checkUnreadable checks a snapshot of unreadableRepo: the unreadable paths
// are listed, tracked ones keep the index's state, untracked ones are
// absent, and the rest is recorded.
func checkUnreadable(t *testing.T, w *Workspace, s *Snapshot) {
	t.Helper()
	if diff := cmp.Diff(wantUnreadable, s.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	for _, p := range []string{"a.txt", "d/t.txt", "e/u.txt"} {
		got, err := w.db.Lookup(s.Worktree, p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := w.db.Lookup(s.IndexTree, p)
		if err != nil {
			t.Fatal(err)
		}
		if got.Hash != want.Hash || got.Mode != want.Mode {
			t.Errorf("%s: recorded %v %s, want the index's %v %s", p, got.Mode, got.Hash, want.Mode, want.Hash)
		}
	}
	for p, want := range map[string]bool{"b.txt": true, "f.txt": false, "secret/s.txt": false} {
		got, err := w.db.Lookup(s.Worktree, p)
		if err != nil {
			t.Fatal(err)
		}
		if got.Exists() != want {
			t.Errorf("%s recorded: %v, want %v", p, got.Exists(), want)
		}
	}
}

// TestSnapshotSkipsUnreadable: files and folders the user may not read are
// skipped and listed, as git status warns and goes on, and the rest of the
// work tree is recorded.
func TestSnapshotSkipsUnreadable(t *testing.T) {
	if !gittest.AsUnprivileged(t) {
		return
	}
	r := unreadableRepo(t)
	before, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	w := openWS(t, r.Dir)
	s, err := w.Snapshot(context.Background())
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	checkUnreadable(t, w, s)
	gittest.CheckComplete(t, r.Dir, s.Worktree)
	after, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Errorf("snapshot changed user state:\n%s", gittest.Diff(before, after))
	}
}

// TestDaemonSkipsUnreadable: the watch daemon's snapshots skip what a walk
// skips, whether the folder was unreadable when the watcher was armed or
// became so later, and record it once it is readable again.
func TestDaemonSkipsUnreadable(t *testing.T) {
	if !gittest.AsUnprivileged(t) {
		return
	}
	r := unreadableRepo(t)
	d := startDaemon(t, r.Dir)
	listening.Delete(d.sockPath) // asked through the socket, as from another process
	client := openWS(t, r.Dir, useDaemon)
	ctx := context.Background()
	first, err := client.Snapshot(ctx)
	if err != nil {
		t.Fatalf("first snapshot: %v", err)
	}
	checkUnreadable(t, client, first)

	// Readable again, then a folder unreadable while the watcher watches.
	for _, p := range []string{"a.txt", "f.txt", "d", "secret", "e"} {
		r.Chmod(p, 0o755)
	}
	r.Write("later/l.txt", "l\n")
	readable, err := client.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(readable.Skipped) != 0 {
		t.Errorf("skipped once readable: %v", readable.Skipped)
	}
	sameSnapshot(t, client, "readable again", readable, fullWalk(t, r.Dir))
	r.Chmod("later", 0)
	hidden, err := client.Snapshot(ctx)
	if err != nil {
		t.Fatalf("snapshot with later/ unreadable: %v", err)
	}
	want := []record.Skipped{{Path: "later", Reason: ReasonUnreadableFolder}}
	if diff := cmp.Diff(want, hidden.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if st, _ := client.db.Lookup(hidden.Worktree, "later/l.txt"); st.Exists() {
		t.Errorf("later/l.txt recorded from what the watcher saw, though no walk may read it")
	}
	r.Chmod("later", 0o755)
}
