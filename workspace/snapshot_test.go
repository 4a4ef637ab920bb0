package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gitguard/gitguard/internal/gittest"
)

// objectFiles lists the files under the object database (loose objects,
// packs), so a test can tell whether anything was written.
func objectFiles(t *testing.T, dir string) []string {
	t.Helper()
	root := filepath.Join(dir, ".git", "objects")
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestSecondSnapshotWritesNothing: with nothing changed, a second snapshot
// writes no object at all, and a clean work tree's first snapshot reuses
// HEAD's trees without writing any.
func TestSecondSnapshotWritesNothing(t *testing.T) {
	tests := []struct {
		name  string
		setup func(r *gittest.Repo)
		clean bool
	}{
		{name: "clean", clean: true, setup: func(r *gittest.Repo) {}},
		{name: "dirty", setup: func(r *gittest.Repo) {
			r.Write("a.txt", "changed\n")
			r.Write("dir/sub/new.txt", "untracked\n")
			r.Remove("dir/b.txt")
			r.Symlink("elsewhere", "link")
			r.Write("staged.txt", "staged\n")
			r.Git("add", "staged.txt")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := gittest.New(t)
			base(t, r)
			tc.setup(r)
			before := objectFiles(t, r.Dir)
			s1 := snap(t, r.Dir)
			if tc.clean {
				headTree := r.Git("rev-parse", "HEAD^{tree}")
				if s1.Worktree.String() != headTree || s1.IndexTree.String() != headTree {
					t.Errorf("clean snapshot: index %s, worktree %s, want HEAD's tree %s", s1.IndexTree, s1.Worktree, headTree)
				}
				if s1.Stats.Trees != 0 || s1.Stats.Hashed != 0 {
					t.Errorf("clean snapshot wrote %d trees and hashed %d files, want 0 and 0", s1.Stats.Trees, s1.Stats.Hashed)
				}
				if diff := cmp.Diff(before, objectFiles(t, r.Dir)); diff != "" {
					t.Errorf("clean snapshot wrote objects (-before +after):\n%s", diff)
				}
			} else if s1.Stats.Trees == 0 {
				t.Errorf("dirty snapshot wrote no trees")
			}
			mid := objectFiles(t, r.Dir)
			s2 := snap(t, r.Dir)
			if s2.Stats.Trees != 0 {
				t.Errorf("second snapshot wrote %d trees, want 0", s2.Stats.Trees)
			}
			if diff := cmp.Diff(mid, objectFiles(t, r.Dir)); diff != "" {
				t.Errorf("second snapshot wrote objects (-before +after):\n%s", diff)
			}
			if s1.Worktree != s2.Worktree || s1.IndexTree != s2.IndexTree {
				t.Errorf("snapshots differ: %+v then %+v", s1, s2)
			}
		})
	}
}

// TestSnapshotHashesOnlyChangedFiles is the "must not hash all files"
// requirement: in a freshly committed repository of 2000 files nothing is
// read, and after a change only the changed and untracked files are.
func TestSnapshotHashesOnlyChangedFiles(t *testing.T) {
	r := gittest.New(t)
	const n = 2000
	for i := 0; i < n; i++ {
		r.Write(fmt.Sprintf("d%02d/f%04d.txt", i%40, i), fmt.Sprintf("file %d\n", i))
	}
	backdate(t, r.Dir)
	r.Commit("many")

	s := snap(t, r.Dir)
	// Nothing changed: the whole tree is the index's cache-tree. How many
	// folders come from the folder cache depends on their age, which
	// dircache_test.go sets.
	folders := cmpopts.IgnoreFields(Stats{}, "DirsCached")
	want := Stats{Tracked: n, Reused: n, Dirs: 41, TreesFromIndex: 1}
	if diff := cmp.Diff(want, s.Stats, folders); diff != "" {
		t.Errorf("first snapshot stats (-want +got):\n%s", diff)
	}

	r.Write("d07/f0007.txt", "changed\n")
	r.Write("d07/new.txt", "new\n")
	s = snap(t, r.Dir)
	// The 39 folders but d07 come from the cache-tree; d07 and the top are written.
	want = Stats{Tracked: n, Reused: n - 1, Hashed: 2, Untracked: 1, Dirs: 41, Trees: 2, TreesFromIndex: 39}
	if diff := cmp.Diff(want, s.Stats, folders); diff != "" {
		t.Errorf("snapshot after a change (-want +got):\n%s", diff)
	}
	_, wantWork := oracle(t, r.Dir)
	if s.Worktree.String() != wantWork {
		t.Errorf("Worktree = %s, git add -A = %s", s.Worktree, wantWork)
	}
}

// setClock moves the package clock to at for the rest of the test.
func setClock(t *testing.T, at time.Time) {
	t.Helper()
	old := now
	now = func() time.Time { return at }
	t.Cleanup(func() { now = old })
}

func ctimeOf(t *testing.T, path string) time.Time {
	t.Helper()
	var st fileStat
	if err := lstatPath(path, &st); err != nil {
		t.Fatal(err)
	}
	return time.Unix(st.ctimeSec, st.ctimeNsec)
}

// TestStatCache: a file gitguard hashed itself is served from the stat
// cache next time, unless it changed; a same-size rewrite with the mtime put
// back is still seen because the ctime moved. Files changed within the racy
// margin of a snapshot are not cached.
func TestStatCache(t *testing.T) {
	r := gittest.New(t)
	base(t, r)
	u := filepath.Join(r.Dir, "untracked.txt")
	r.Write("a.txt", "stat-dirty, same content\n")
	r.Commit("a")
	r.Write("a.txt", "stat-dirty, same content\n") // new mtime, same blob
	r.Write("untracked.txt", "one\n")

	// Within the racy margin of the files' ctime: hashed, not cached.
	setClock(t, ctimeOf(t, u).Add(time.Second))
	s := snap(t, r.Dir)
	if s.Stats.Hashed != 2 || s.Stats.Cached != 0 {
		t.Errorf("first snapshot: %+v, want Hashed 2 (untracked + stat-dirty), Cached 0", s.Stats)
	}
	s = snap(t, r.Dir)
	if s.Stats.Hashed != 2 || s.Stats.Cached != 0 {
		t.Errorf("files changed within the racy margin were cached: %+v", s.Stats)
	}

	// Later: the next snapshot saves them, the one after uses the cache.
	setClock(t, ctimeOf(t, u).Add(time.Hour))
	first := snap(t, r.Dir)
	s = snap(t, r.Dir)
	if s.Stats.Hashed != 0 || s.Stats.Cached != 2 {
		t.Errorf("snapshot after caching: %+v, want Hashed 0, Cached 2", s.Stats)
	}
	if s.Worktree != first.Worktree {
		t.Errorf("cached snapshot %s differs from hashed one %s", s.Worktree, first.Worktree)
	}

	// Same size, mtime forced back: only the ctime tells.
	fi, err := os.Stat(u)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(u, []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(u, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	setClock(t, ctimeOf(t, u).Add(time.Hour))
	s = snap(t, r.Dir)
	if s.Stats.Hashed != 1 || s.Stats.Cached != 1 {
		t.Errorf("snapshot after a same-size, same-mtime rewrite: %+v, want Hashed 1, Cached 1", s.Stats)
	}
	got, err := openWS(t, r.Dir).db.Lookup(s.Worktree, "untracked.txt")
	if err != nil {
		t.Fatal(err)
	}
	if want := r.Git("hash-object", "untracked.txt"); got.Hash.String() != want {
		t.Errorf("untracked.txt recorded as %s, want %s (the new content)", got.Hash, want)
	}
	_, wantWork := oracle(t, r.Dir)
	if s.Worktree.String() != wantWork {
		t.Errorf("Worktree = %s, git add -A = %s", s.Worktree, wantWork)
	}

	// A deleted file leaves the cache.
	r.Remove("untracked.txt")
	snap(t, r.Dir)
	if _, ok := loadStatCache(openWS(t, r.Dir).StateDir())["untracked.txt"]; ok {
		t.Errorf("stat cache still holds a deleted file")
	}
}

// TestStatCacheCorrupt: a damaged cache is ignored, never trusted.
func TestStatCacheCorrupt(t *testing.T) {
	for _, content := range []string{"", "garbage", statCacheMagic + "\xff\xff\xff", statCacheMagic + "\x05abc"} {
		t.Run(fmt.Sprintf("%q", content), func(t *testing.T) {
			r := gittest.New(t)
			base(t, r)
			r.Write("u.txt", "u\n")
			gittest.WriteFile(t, filepath.Join(r.Dir, ".git", "gitguard", "statcache"), content)
			checkOracle(t, r.Dir)
		})
	}
}
