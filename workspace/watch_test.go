package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// watched starts a watcher the way gitguard run does: watches from a
// previous snapshot, then the base snapshot.
func watched(t *testing.T, w *Workspace) *Watcher {
	t.Helper()
	ctx := context.Background()
	prev, err := w.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := w.Watch(prev.Worktree)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wt.Close() })
	base, err := w.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.SetBase(base); err != nil {
		t.Fatal(err)
	}
	return wt
}

// armedByWalk starts a watcher the way CallStart does: armed by the walk
// of the base snapshot itself.
func armedByWalk(t *testing.T, w *Workspace) *Watcher {
	t.Helper()
	wt, err := w.Watch(record.ZeroHash)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wt.Close() })
	if _, err := w.SnapshotWatched(context.Background(), wt); err != nil {
		t.Fatal(err)
	}
	return wt
}

// TestWatcherMatchesFullSnapshot makes rounds of changes of every kind and
// checks after each that the watcher's snapshot is exactly the full walk's,
// for both ways of arming the watcher.
func TestWatcherMatchesFullSnapshot(t *testing.T) {
	for name, start := range map[string]func(*testing.T, *Workspace) *Watcher{"watch then snapshot": watched, "armed by the walk": armedByWalk} {
		t.Run(name, func(t *testing.T) { testWatcherMatches(t, start) })
	}
}

func testWatcherMatches(t *testing.T, start func(*testing.T, *Workspace) *Watcher) {
	r := watchRepo(t)
	w := openWS(t, r.Dir)
	wt := start(t, w)
	ctx := context.Background()
	rounds := changeRounds(t, r)
	for _, round := range rounds {
		round.do()
		got, err := wt.Snapshot(ctx)
		if err != nil {
			t.Fatalf("%s: watcher snapshot: %v", round.name, err)
		}
		want, err := w.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got.Worktree != want.Worktree {
			diff, _ := w.db.DiffTrees(want.Worktree, got.Worktree)
			t.Fatalf("%s: watcher tree %s, full walk %s; differences: %+v", round.name, got.Worktree, want.Worktree, diff)
		}
	}
}

// watchRepo is a repository with a few folders, ignore rules and a commit.
func watchRepo(t *testing.T) *gittest.Repo {
	r := gittest.New(t)
	r.Write(".gitignore", "*.log\nbuild/\n")
	for i := 0; i < 20; i++ {
		r.Write(fmt.Sprintf("src/p%d/f%d.go", i%4, i), fmt.Sprintf("package p // %d\n", i))
	}
	r.Write("docs/readme.md", "docs\n")
	r.Commit("init")
	return r
}

type changeRound struct {
	name string
	do   func()
}

// changeRounds are changes of every kind a watcher must see, in an order
// that works on watchRepo.
func changeRounds(t *testing.T, r *gittest.Repo) []changeRound {
	return []changeRound{
		{"modify and create", func() {
			r.Write("src/p0/f0.go", "package p // changed\n")
			r.Write("src/p1/new.go", "package p\n")
			r.Write("top.txt", "top\n")
		}},
		{"new nested folders", func() {
			r.Write("new/a/b/c.txt", "deep\n")
			r.Write("new/a/d.txt", "d\n")
		}},
		{"delete a file and a folder", func() {
			r.Remove("src/p2/f2.go")
			if err := os.RemoveAll(filepath.Join(r.Dir, "src/p3")); err != nil {
				t.Fatal(err)
			}
		}},
		{"rename a folder", func() {
			if err := os.Rename(filepath.Join(r.Dir, "new/a"), filepath.Join(r.Dir, "moved")); err != nil {
				t.Fatal(err)
			}
		}},
		{"mode, symlink, ignored files", func() {
			r.Chmod("src/p1/f1.go", 0o755)
			r.Symlink("docs/readme.md", "link")
			r.Write("debug.log", "ignored\n")
			r.Write("build/out.bin", "ignored too\n")
		}},
		{"file becomes a folder", func() {
			r.Remove("top.txt")
			r.Write("top.txt/inside.txt", "now a folder\n")
		}},
		{"no change", func() {}},
	}
}

// TestWatcherNeverVouchesBlindly: after an overflow, a failed watch, a
// restart without a base, a changed .gitignore, a git gc or a changed index, the
// watcher refuses and the caller walks the tree, so no change is missed.
func TestWatcherNeverVouchesBlindly(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T) (*gittest.Repo, *Workspace, *Watcher) {
		r := gittest.New(t)
		r.Write("a.txt", "a\n")
		r.Commit("init")
		w := openWS(t, r.Dir)
		return r, w, watched(t, w)
	}
	cases := map[string]func(t *testing.T, r *gittest.Repo, w *Workspace, wt *Watcher) *Watcher{
		"overflow": func(t *testing.T, r *gittest.Repo, w *Workspace, wt *Watcher) *Watcher {
			wt.Fail(fsnotify.ErrEventOverflow)
			return wt
		},
		"restart without a base": func(t *testing.T, r *gittest.Repo, w *Workspace, wt *Watcher) *Watcher {
			wt.Close()
			r.Write("a.txt", "changed while no watcher ran\n")
			wt2, err := w.Watch(wt.base.Worktree)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { wt2.Close() })
			return wt2
		},
		"gitignore changed": func(t *testing.T, r *gittest.Repo, w *Workspace, wt *Watcher) *Watcher {
			r.Write(".gitignore", "a.txt\n")
			return wt
		},
		"git gc": func(t *testing.T, r *gittest.Repo, w *Workspace, wt *Watcher) *Watcher {
			r.Git("gc", "-q", "--prune=now")
			return wt
		},
		"index changed": func(t *testing.T, r *gittest.Repo, w *Workspace, wt *Watcher) *Watcher {
			r.Write("b.txt", "b\n")
			r.Git("add", "b.txt")
			return wt
		},
	}
	for name, breakIt := range cases {
		t.Run(name, func(t *testing.T) {
			r, w, wt := setup(t)
			wt = breakIt(t, r, w, wt)
			if _, err := wt.Snapshot(ctx); !errors.Is(err, ErrCannotVouch) {
				t.Fatalf("watcher snapshot: %v, want ErrCannotVouch", err)
			}
		})
	}
}

// cookieFiles returns the cookie files in w's cookie folder.
func cookieFiles(t *testing.T, w *Workspace) []os.FileInfo {
	t.Helper()
	entries, err := os.ReadDir(w.cookieDir())
	if err != nil {
		t.Fatal(err)
	}
	var out []os.FileInfo
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "cookie-") {
			fi, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fi)
		}
	}
	return out
}

// A watcher's snapshots rename one cookie file rather than make one each:
// after many snapshots the folder holds that one file, still the same
// file, and the snapshots still see every change. Close removes it; a
// cookie file a dead process left a day ago goes when a watcher starts.
func TestWatcherRenamesItsCookie(t *testing.T) {
	r := watchRepo(t)
	w := openWS(t, r.Dir)
	stale := filepath.Join(w.cookieDir(), "cookie-999999-7")
	if err := os.MkdirAll(w.cookieDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * staleCookie)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	wt := armedByWalk(t, w)
	if _, err := os.Lstat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a day-old cookie file is still there: %v", err)
	}
	ctx := context.Background()
	var first os.FileInfo
	for i := range 5 {
		r.Write(fmt.Sprintf("docs/new%d.md", i), "new\n")
		got, err := wt.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if fs, err := w.db.Lookup(got.Worktree, fmt.Sprintf("docs/new%d.md", i)); err != nil || !fs.Exists() {
			t.Fatalf("snapshot %d misses the file written before it: %+v, %v", i, fs, err)
		}
		files := cookieFiles(t, w)
		if len(files) != 1 {
			t.Fatalf("after snapshot %d the cookie folder holds %d cookie files, want 1", i, len(files))
		}
		if first == nil {
			first = files[0]
		} else if !os.SameFile(first, files[0]) {
			t.Fatalf("snapshot %d made a new cookie file", i)
		}
	}
	if err := wt.Close(); err != nil {
		t.Fatal(err)
	}
	if files := cookieFiles(t, w); len(files) != 0 {
		t.Errorf("%d cookie files after Close", len(files))
	}
}

// Two watchers of one process (a daemon's old one watches on until its new
// one is armed) keep a cookie file each: closing one leaves the other's,
// and the other's snapshots still see every change.
func TestWatchersKeepTheirOwnCookies(t *testing.T) {
	r := watchRepo(t)
	w := openWS(t, r.Dir)
	ctx := context.Background()
	old, next := armedByWalk(t, w), armedByWalk(t, w)
	for _, wt := range []*Watcher{old, next} {
		if _, err := wt.Snapshot(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if files := cookieFiles(t, w); len(files) != 2 {
		t.Fatalf("%d cookie files for two watchers, want 2", len(files))
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	r.Write("docs/after.md", "after\n")
	got, err := next.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fs, err := w.db.Lookup(got.Worktree, "docs/after.md"); err != nil || !fs.Exists() {
		t.Fatalf("the remaining watcher's snapshot misses a change: %+v, %v", fs, err)
	}
	if files := cookieFiles(t, w); len(files) != 1 {
		t.Errorf("%d cookie files after one watcher closed, want 1", len(files))
	}
}
