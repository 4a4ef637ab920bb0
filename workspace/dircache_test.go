package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/gittest"
)

// needFolderCache skips a test of the folder cache where the file system
// holding the test's folders is not one it trusts (dirTimesKept): there
// every folder is listed, which the other tests cover.
func needFolderCache(t *testing.T) {
	t.Helper()
	if on, _ := dirTimesKept(t.TempDir()); !on {
		t.Skip("the folder cache is off on the file system of the test's temporary folder")
	}
}

// ageFolders sets the modification time of every folder of the work tree
// at dir an hour back and moves the package clock an hour forward: each
// folder's listing is then old enough to be kept, and any later change of
// a folder moves its time off the one kept, even within the same tick.
func ageFolders(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return nil
		}
		if fi.Name() == ".git" {
			return filepath.SkipDir
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	setClock(t, time.Now().Add(time.Hour))
}

// warmFolders snapshots the repository at dir with its folders aged, and
// checks that the next snapshot takes every folder's names from the cache.
func warmFolders(t *testing.T, dir string) {
	t.Helper()
	ageFolders(t, dir)
	first := snap(t, dir)
	s := snap(t, dir)
	if s.Stats.DirsCached != s.Stats.Dirs || s.Stats.Dirs == 0 {
		t.Fatalf("snapshot after a warm one: %d of %d folders from the cache, want all", s.Stats.DirsCached, s.Stats.Dirs)
	}
	if s.Worktree != first.Worktree {
		t.Fatalf("snapshot from the folder cache %s differs from the one that listed %s", s.Worktree, first.Worktree)
	}
}

// TestFolderCacheMatchesGit runs every oracle case on a repository whose
// folder cache is warm: each change the case makes (new, deleted and
// renamed names, files swapped for folders or links, ignore rules, the
// index) must show in the snapshot as git add -A stages it.
func TestFolderCacheMatchesGit(t *testing.T) {
	needFolderCache(t)
	for _, tc := range oracleCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ownHome {
				gittest.Seal(t)
			}
			r := gittest.New(t)
			if !tc.unborn {
				base(t, r)
			}
			warmFolders(t, r.Dir)
			tc.setup(t, r)
			checkOracle(t, r.Dir)
		})
	}
}

// TestFolderCacheUnchangedFolders: what changes without a folder's names
// changing (the index, the ignore rules, a file's content) shows in a
// snapshot that takes the folder's names from the cache.
func TestFolderCacheUnchangedFolders(t *testing.T) {
	needFolderCache(t)
	cases := []struct {
		name   string
		before func(r *gittest.Repo) // before the cache is warm
		change func(r *gittest.Repo) // after: no name added or removed
	}{
		{"untracked by git rm --cached", nil, func(r *gittest.Repo) { r.Git("rm", "-q", "--cached", "a.txt") }},
		{"staged by git add", func(r *gittest.Repo) { r.Write("dir/new.txt", "new\n") }, func(r *gittest.Repo) { r.Git("add", "dir/new.txt") }},
		{"ignore rule dropped", func(r *gittest.Repo) {
			r.Write(".gitignore", "*.log\n")
			r.Write("dir/x.log", "log\n")
		}, func(r *gittest.Repo) { r.Write(".gitignore", "# nothing ignored\n") }},
		{"ignore rule added", func(r *gittest.Repo) {
			r.Write(".gitignore", "# nothing ignored\n")
			r.Write("dir/x.log", "log\n")
		}, func(r *gittest.Repo) { r.Write(".gitignore", "*.log\n") }},
		{"info/exclude edited", func(r *gittest.Repo) { r.Write("dir/x.secret", "s\n") }, func(r *gittest.Repo) {
			gittest.WriteFile(t, filepath.Join(r.Dir, ".git", "info", "exclude"), "*.secret\n")
		}},
		{"content rewritten", func(r *gittest.Repo) { r.Write("dir/u.txt", "one\n") }, func(r *gittest.Repo) {
			r.Write("dir/u.txt", "two, longer\n")
			r.Write("a.txt", "alpha again\n")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := gittest.New(t)
			base(t, r)
			if tc.before != nil {
				tc.before(r)
			}
			warmFolders(t, r.Dir)
			tc.change(r)
			s := snap(t, r.Dir)
			// .gitignore and a.txt are rewritten in place; info/exclude is
			// in .git: no folder of the work tree changed.
			if tc.name != "info/exclude edited" && s.Stats.DirsCached != s.Stats.Dirs {
				t.Errorf("%d of %d folders from the cache, want all: no name changed", s.Stats.DirsCached, s.Stats.Dirs)
			}
			checkOracle(t, r.Dir)
		})
	}
}

// TestFolderCacheRacy: a folder changed within the racy margin of a
// snapshot is listed again next time, and kept once it is older.
func TestFolderCacheRacy(t *testing.T) {
	needFolderCache(t)
	r := gittest.New(t)
	base(t, r)
	r.Write("dir/new.txt", "new\n")
	setClock(t, time.Now())
	snap(t, r.Dir)
	s := snap(t, r.Dir)
	if s.Stats.DirsCached != 0 {
		t.Errorf("folders changed a moment ago came from the cache: %+v", s.Stats)
	}
	setClock(t, time.Now().Add(time.Hour))
	snap(t, r.Dir)
	s = snap(t, r.Dir)
	if s.Stats.DirsCached != s.Stats.Dirs {
		t.Errorf("folders an hour old: %d of %d from the cache, want all", s.Stats.DirsCached, s.Stats.Dirs)
	}
	// A name added moves the folder's times off the ones kept: it is
	// listed again.
	r.Write("dir/newer.txt", "newer\n")
	s = snap(t, r.Dir)
	if s.Stats.DirsCached != s.Stats.Dirs-1 {
		t.Errorf("after a new name in dir: %d of %d folders from the cache, want all but dir", s.Stats.DirsCached, s.Stats.Dirs)
	}
	checkOracle(t, r.Dir)
}

// TestFolderCacheTimesPutBack: a name added to a folder whose modification
// time is then put back (an agent hiding a file from snapshots) is still
// seen: the folder's change time moved, and no one can put it back.
func TestFolderCacheTimesPutBack(t *testing.T) {
	needFolderCache(t)
	r := gittest.New(t)
	base(t, r)
	warmFolders(t, r.Dir)
	dir := filepath.Join(r.Dir, "dir")
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.Write("dir/hidden.txt", "hidden\n")
	if err := os.Chtimes(dir, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if now, err := os.Stat(dir); err != nil || !now.ModTime().Equal(fi.ModTime()) {
		t.Fatalf("the folder's mtime was not put back: %v", err)
	}
	s := snap(t, r.Dir)
	if s.Stats.DirsCached != s.Stats.Dirs-1 {
		t.Errorf("%d of %d folders from the cache, want all but dir", s.Stats.DirsCached, s.Stats.Dirs)
	}
	if _, err := openWS(t, r.Dir).db.Lookup(s.Worktree, "dir/hidden.txt"); err != nil {
		t.Errorf("the snapshot lacks dir/hidden.txt: %v", err)
	}
	checkOracle(t, r.Dir)
}

// TestFolderCacheDamaged: a damaged or hostile folder cache is ignored,
// never trusted, and replaced by a good one.
func TestFolderCacheDamaged(t *testing.T) {
	needFolderCache(t)
	entry := func(dir string, names ...string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%c%s%s%c", len(dir), dir, strings.Repeat("\x00", 32), len(names))
		for _, n := range names {
			fmt.Fprintf(&b, "%c%s%c", len(n), n, kindFile)
		}
		return b.String()
	}
	for _, content := range []string{
		"",
		"garbage",
		dirCacheMagic + "\xff\xff\xff",
		dirCacheMagic + "\x05abc",
		dirCacheMagic + entry("dir", "../escape"),
		dirCacheMagic + entry("dir", "a/b"),
		dirCacheMagic + entry("../out", "a"),
		dirCacheMagic + entry("dir", ".."),
		dirCacheMagic + entry("dir", "x\x00y"),
		dirCacheMagic + entry("dir", "a") + entry("dir", "b"),
		dirCacheMagic + entry("dir", "a")[:20],
	} {
		t.Run(fmt.Sprintf("%q", content), func(t *testing.T) {
			if _, err := parseDirCache(content); err == nil {
				t.Errorf("parseDirCache accepted it")
			}
			r := gittest.New(t)
			base(t, r)
			r.Write("dir/u.txt", "u\n")
			ageFolders(t, r.Dir)
			gittest.WriteFile(t, dirCachePath(filepath.Join(r.Dir, ".git", "gitguard")), content)
			checkOracle(t, r.Dir)
			if c, err := parseDirCache(readFile(t, dirCachePath(filepath.Join(r.Dir, ".git", "gitguard")))); err != nil || len(c) == 0 {
				t.Errorf("the folder cache was not replaced by a good one: %d folders, %v", len(c), err)
			}
		})
	}
}

// TestCachesNotAFile: a fifo, a folder or a symlink in the place of the
// folder cache or of the stat cache is not read (a fifo would block the
// walk); the snapshot is right all the same.
func TestCachesNotAFile(t *testing.T) {
	needFolderCache(t)
	plant := map[string]func(path string) error{
		"fifo":    func(path string) error { return mkfifo(path) },
		"folder":  func(path string) error { return os.Mkdir(path, 0o755) },
		"symlink": func(path string) error { return os.Symlink("/dev/zero", path) },
	}
	caches := map[string]func(stateDir string) string{"dircache": dirCachePath, "statcache": statCachePath}
	for cache, pathIn := range caches {
		for name, plantAt := range plant {
			t.Run(cache+"/"+name, func(t *testing.T) {
				r := gittest.New(t)
				base(t, r)
				r.Write("dir/u.txt", "u\n")
				ageFolders(t, r.Dir)
				path := pathIn(filepath.Join(r.Dir, ".git", "gitguard"))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := plantAt(path); err != nil {
					t.Skipf("cannot make a %s here: %v", name, err)
				}
				checkOracle(t, r.Dir)
			})
		}
	}
}

// TestDirCacheRoundTrip: what save writes, parseDirCache reads back, but
// the racy folders.
func TestDirCacheRoundTrip(t *testing.T) {
	start := time.Now()
	old := start.Add(-time.Hour).UnixNano()
	c := dirCache{
		"":        {id: dirID{Ino: 2, Size: 4096, MtimeNs: old, CtimeNs: old}, ents: []dirent{{"a.txt", kindFile}, {"dir", kindDir}, {"ln", kindSymlink}, {"odd\nname", kindUnknown}}},
		"dir":     {id: dirID{Ino: 3, Size: 4096, MtimeNs: old, CtimeNs: old + 1}, ents: []dirent{}},
		"dir/new": {id: dirID{Ino: 4, Size: 4096, MtimeNs: old, CtimeNs: start.UnixNano()}, ents: []dirent{{"x", kindFile}}},
	}
	dir := t.TempDir()
	if err := c.save(dir, start); err != nil {
		t.Fatal(err)
	}
	got, err := parseDirCache(readFile(t, dirCachePath(dir)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["dir/new"].ents != nil {
		t.Fatalf("read back %d folders (%v), want the 2 that are not racy", len(got), got)
	}
	for _, dir := range []string{"", "dir"} {
		if fmt.Sprint(got[dir]) != fmt.Sprint(c[dir]) {
			t.Errorf("folder %q read back as %v, want %v", dir, got[dir], c[dir])
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
