package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
)

// base commits a small repository with files, folders, an executable and a
// symlink, with no racily clean index entries (testdata/repos/base.sh).
func base(t *testing.T, r *gittest.Repo) {
	t.Helper()
	r.Apply("base")
}

type oracleCase struct {
	name   string
	unborn bool // start from an empty repository instead of base
	// ownHome: the case writes global configuration, so it gets a home of
	// its own (gittest.Seal) and does not run in parallel.
	ownHome bool
	setup   func(t *testing.T, r *gittest.Repo)
}

var oracleCases = []oracleCase{
	{name: "clean", setup: func(t *testing.T, r *gittest.Repo) {}},
	{name: "modified", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("a.txt", "alpha, changed\n")
		r.Write("dir/sub/c.txt", "charlie two\n")
	}},
	{name: "modified same size", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("a.txt", "ALPHA\n")
	}},
	{name: "deleted file", setup: func(t *testing.T, r *gittest.Repo) {
		r.Remove("dir/b.txt")
	}},
	{name: "deleted folder", setup: func(t *testing.T, r *gittest.Repo) {
		r.Remove("dir")
	}},
	{name: "untracked", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("new.txt", "new\n")
		r.Write("newdir/deep/er/y.txt", "y\n")
		r.Write("dir/sub/e.txt", "echo\n")
		if err := os.MkdirAll(filepath.Join(r.Dir, "emptydir/inner"), 0o755); err != nil {
			t.Fatal(err)
		}
	}},
	{name: "staged but not committed", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("staged.txt", "staged\n")
		r.Write("a.txt", "alpha staged\n")
		r.Git("add", "staged.txt", "a.txt")
		r.Write("a.txt", "alpha staged then changed\n")
	}},
	{name: "executable bit set", setup: func(t *testing.T, r *gittest.Repo) {
		r.Chmod("a.txt", 0o755)
		r.Write("new.sh", "#!/bin/sh\n")
		r.Chmod("new.sh", 0o700)
	}},
	{name: "executable bit cleared", setup: func(t *testing.T, r *gittest.Repo) {
		r.Chmod("exec.sh", 0o644)
	}},
	{name: "group exec bit only", setup: func(t *testing.T, r *gittest.Repo) {
		r.Chmod("a.txt", 0o654)
		r.Write("g.sh", "g\n")
		r.Chmod("g.sh", 0o614)
	}},
	{name: "symlink retargeted", setup: func(t *testing.T, r *gittest.Repo) {
		r.Symlink("dir/b.txt", "link")
	}},
	{name: "symlink same-length retarget", setup: func(t *testing.T, r *gittest.Repo) {
		r.Symlink("z-last", "link2")
		r.Commit("link2")
		r.Symlink("exec.s", "link2") // same length: size cannot tell
	}},
	{name: "dangling symlink", setup: func(t *testing.T, r *gittest.Repo) {
		r.Symlink("does/not/exist", "dangling")
	}},
	{name: "symlink to folder", setup: func(t *testing.T, r *gittest.Repo) {
		r.Symlink("dir", "dirlink")
		r.Symlink("../lib", "dir/liblink")
	}},
	{name: "file replaced by symlink", setup: func(t *testing.T, r *gittest.Repo) {
		r.Symlink("exec.sh", "a.txt")
	}},
	{name: "symlink replaced by file", setup: func(t *testing.T, r *gittest.Repo) {
		r.Remove("link")
		r.Write("link", "now a file\n")
	}},
	{name: "tracked folder replaced by symlink to folder", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("elsewhere/x.go", "package lib\n")
		r.Remove("lib")
		r.Symlink("elsewhere", "lib")
	}},
	{name: "tracked folder replaced by symlink to itself elsewhere", setup: func(t *testing.T, r *gittest.Repo) {
		if err := os.Rename(filepath.Join(r.Dir, "dir"), filepath.Join(r.Dir, "moved")); err != nil {
			t.Fatal(err)
		}
		r.Symlink("moved", "dir")
	}},
	{name: "empty files", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("a.txt", "")
		r.Write("empty-new", "")
		r.Write("emptydir/empty", "")
	}},
	{name: "binary files", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("bin.dat", "\x00\x01\x02\xff\xfe\x00binary\r\n\x00")
		r.Write("dir/b.txt", "\x89PNG\r\n\x1a\n\x00\x00")
	}},
	{name: "odd names", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("héllo wörld.txt", "1\n")
		r.Write("with space/file name.txt", "2\n")
		r.Write("-dash", "3\n")
		r.Write("--double-dash", "4\n")
		r.Write("-d/-e", "5\n")
		r.Write("日本語/ファイル.txt", "6\n")
		r.Write("tab\there", "7\n")
		r.Write("new\nline", "8\n")
		r.Write("quote\"and\\backslash", "9\n")
		r.Write("a.txt.d/x", "sorts between a.txt and dir\n")
		r.Write("dir-x", "sorts after dir/ in trees\n")
		r.Write("dir.x", "sorts before dir/ in trees\n")
		r.Write("dir0", "sorts after dir/\n")
	}},
	{name: "odd names committed then changed", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("-dash", "3\n")
		r.Write("sp ace/é", "4\n")
		r.Write("dir-x", "5\n")
		r.Commit("odd")
		r.Write("-dash", "changed\n")
		r.Remove("sp ace")
		r.Write("dir/sub-y", "6\n")
	}},
	{name: "file replaced by folder", setup: func(t *testing.T, r *gittest.Repo) {
		r.Remove("a.txt")
		r.Write("a.txt/inner.txt", "inside\n")
		r.Remove("z-last")
		r.Write("z-last/a/b", "deeper\n")
	}},
	{name: "folder replaced by file", setup: func(t *testing.T, r *gittest.Repo) {
		r.Remove("dir")
		r.Write("dir", "now a file\n")
	}},
	{name: "subfolder replaced by file", setup: func(t *testing.T, r *gittest.Repo) {
		r.Remove("dir/sub")
		r.Write("dir/sub", "file\n")
	}},
	{name: "nested gitignore with negation", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write(".gitignore", "*.log\n!keep.log\n/build/\ntmp*\n")
		r.Write("x.log", "ignored\n")
		r.Write("keep.log", "kept\n")
		r.Write("build/out", "ignored\n")
		r.Write("dir/build/out", "kept: /build/ is anchored\n")
		r.Write("dir/.gitignore", "!*.log\nsub/\n")
		r.Write("dir/y.log", "re-included in dir\n")
		r.Write("dir/sub/new.txt", "ignored with dir/sub (tracked files stay)\n")
		r.Write("dir/sub/c.txt", "tracked, changed: still recorded\n")
		r.Write("lib/.gitignore", "*\n!*.go\n")
		r.Write("lib/y.go", "kept\n")
		r.Write("lib/y.txt", "ignored\n")
		r.Write("tmpfile", "ignored\n")
		r.Write("dir/tmpdir/f", "ignored\n")
	}},
	{name: "gitignore in ignored folder is not read", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write(".gitignore", "out/\n")
		r.Write("out/.gitignore", "!*\n")
		r.Write("out/f", "ignored\n")
	}},
	{name: "ignored folder containing a tracked file", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("build/keep.txt", "tracked\n")
		r.Write("build/sub/keep2.txt", "tracked\n")
		r.Git("add", "build")
		r.Git("commit", "-qm", "build")
		r.Write(".gitignore", "build/\n")
		r.Write("build/new.txt", "untracked in an ignored folder\n")
		r.Write("build/sub/new2.txt", "untracked deeper\n")
		r.Write("build/other/new3.txt", "untracked, untracked folder\n")
		r.Write("build/keep.txt", "tracked, changed\n")
		r.Remove("build/sub/keep2.txt")
		r.Write("build/sub/keep2.txt/x", "dir where a tracked file was\n")
	}},
	{name: "ignored pattern on tracked file", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write(".gitignore", "*.txt\ndir/\n")
		r.Write("a.txt", "tracked files are never ignored\n")
		r.Write("dir/sub/new", "in ignored folder\n")
		r.Write("new.txt", "ignored\n")
	}},
	{name: "info exclude", setup: func(t *testing.T, r *gittest.Repo) {
		gittest.WriteFile(t, filepath.Join(r.Dir, ".git/info/exclude"), "*.secret\n/only-top\n")
		r.Write("x.secret", "ignored\n")
		r.Write("dir/y.secret", "ignored\n")
		r.Write("only-top", "ignored\n")
		r.Write("dir/only-top", "kept\n")
		r.Write(".gitignore", "!dir/y.secret\n")
	}},
	{name: "core.excludesFile in global config", ownHome: true, setup: func(t *testing.T, r *gittest.Repo) {
		home := os.Getenv("HOME")
		gittest.WriteFile(t, filepath.Join(home, "my-ignore"), "*.bak\n")
		r.Git("config", "--global", "core.excludesFile", "~/my-ignore")
		r.Write("x.bak", "ignored\n")
		r.Write("dir/y.bak", "ignored\n")
		r.Write("dir/.gitignore", "!y.bak\n")
		r.Write("z.bak2", "kept\n")
	}},
	{name: "XDG default excludes file", ownHome: true, setup: func(t *testing.T, r *gittest.Repo) {
		gittest.WriteFile(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git", "ignore"), "*.xdg\n")
		r.Write("x.xdg", "ignored\n")
		r.Write("dir/x.xdg", "ignored\n")
	}},
	{name: "core.excludesFile overrides XDG default", ownHome: true, setup: func(t *testing.T, r *gittest.Repo) {
		gittest.WriteFile(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git", "ignore"), "*.xdg\n")
		gittest.WriteFile(t, filepath.Join(os.Getenv("HOME"), "other-ignore"), "*.other\n")
		r.Git("config", "--global", "core.excludesFile", filepath.Join(os.Getenv("HOME"), "other-ignore"))
		r.Write("x.xdg", "kept\n")
		r.Write("x.other", "ignored\n")
	}},
	{name: "intent to add", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("ita.txt", "intent\n")
		r.Write("dir/ita2.txt", "intent too\n")
		r.Write("ita-gone.txt", "will be deleted\n")
		r.Git("add", "-N", "ita.txt", "dir/ita2.txt", "ita-gone.txt")
		r.Write("dir/ita2.txt", "changed after add -N\n")
		r.Remove("ita-gone.txt")
	}},
	{name: "unborn repository", unborn: true, setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("a.txt", "a\n")
		r.Write("dir/b.txt", "b\n")
		r.Git("add", "a.txt")
		r.Write("a.txt", "a changed\n")
	}},
	{name: "unborn repository without index", unborn: true, setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("a.txt", "a\n")
		r.Write(".gitignore", "*.o\n")
		r.Write("x.o", "ignored\n")
	}},
	{name: "empty unborn repository", unborn: true, setup: func(t *testing.T, r *gittest.Repo) {}},
	{name: "racy: changed right after commit", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("racy.txt", "aaaa\n")
		r.Commit("racy")
		r.Write("racy.txt", "bbbb\n")
	}},
	{name: "racy: same stat data, ctime not trusted", setup: func(t *testing.T, r *gittest.Repo) {
		// Everything git compares matches except the content: the file is
		// rewritten in place with the same size and its mtime put back,
		// core.trustctime hides the ctime change, and the index file has
		// the same mtime as the entry. Only git's racy-clean rule can tell.
		r.Git("config", "core.trustctime", "false")
		p := filepath.Join(r.Dir, "racy.txt")
		r.Write("racy.txt", "aaaa\n")
		r.Commit("racy")
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("bbbb\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := fi.ModTime()
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(r.Dir, ".git", "index"), mt, mt); err != nil {
			t.Fatal(err)
		}
	}},
	{name: "index version 2", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("update-index", "--index-version", "2")
		r.Write("a.txt", "changed\n")
		r.Write("u.txt", "untracked\n")
	}},
	{name: "index version 3 with skip-worktree", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("update-index", "--index-version", "3")
		r.Git("update-index", "--skip-worktree", "dir/b.txt", "dir/sub/d.txt")
		r.Remove("dir/b.txt")                     // skip-worktree: git add -A keeps it
		r.Write("dir/sub/d.txt", "changed too\n") // and ignores the change
		r.Write("a.txt", "changed\n")
	}},
	{name: "index version 3 with intent to add", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("update-index", "--index-version", "3")
		r.Write("ita.txt", "ita\n")
		r.Git("add", "-N", "ita.txt")
	}},
	{name: "index version 4", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("dir/sub/deeper/long-name-one.txt", "1\n")
		r.Write("dir/sub/deeper/long-name-two.txt", "2\n")
		r.Write("dir/sub/deeper/other", "3\n")
		r.Commit("more")
		r.Git("update-index", "--index-version", "4")
		r.Write("dir/sub/deeper/long-name-two.txt", "changed\n")
		r.Write("dir/sub/deeper/long-name-three.txt", "new\n")
		r.Remove("dir/sub/deeper/other")
	}},
	{name: "index version 4 with intent to add", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("update-index", "--index-version", "4")
		r.Write("dir/ita.txt", "ita\n")
		r.Git("add", "-N", "dir/ita.txt")
	}},
	{name: "split index", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("update-index", "--split-index")
		r.Write("a.txt", "changed\n")
		r.Write("staged.txt", "staged\n")
		r.Git("add", "staged.txt")
		r.Remove("dir/b.txt")
		r.Write("u.txt", "untracked\n")
	}},
	{name: "split index with skip-worktree and intent to add", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("update-index", "--split-index")
		r.Git("update-index", "--skip-worktree", "dir/b.txt")
		r.Remove("dir/b.txt")
		r.Write("ita.txt", "ita\n")
		r.Git("add", "-N", "ita.txt")
	}},
	{name: "core.filemode false", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("config", "core.filemode", "false")
		r.Chmod("a.txt", 0o755)   // ignored
		r.Chmod("exec.sh", 0o644) // ignored
		r.Write("new.sh", "#!/bin/sh\n")
		r.Chmod("new.sh", 0o755) // recorded as 100644, as git add does
		r.Remove("link")
		r.Write("link", "a file where a symlink was\n")
		r.Chmod("link", 0o755)
	}},
	// Windows without symlink rights: git checked the link out as a plain
	// file holding its target, and a snapshot keeps it a link.
	{name: "core.symlinks false", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("config", "core.symlinks", "false")
		r.Remove("link")
		r.Write("link", "a.txt") // as checked out: unchanged
		r.Write("dir/link2", "x")
		r.Git("update-index", "--add", "--cacheinfo", "120000,"+blobOf(t, r, "lib/x.go")+",dir/link2")
		r.Write("dir/link2", "lib/x.go, retargeted") // the "link" changed
		r.Write("plain.txt", "an untracked file stays a file\n")
	}},
	// core.ignoreCase (macOS and Windows): names that differ from the
	// index's only in case are the index's; ignore rules ignore case.
	{name: "core.ignorecase renamed in case", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("config", "core.ignorecase", "true")
		mustRename(t, r, "a.txt", "A.txt")
		mustRename(t, r, "dir/sub", "dir/SUB")
	}},
	{name: "core.ignorecase ignore rules and .GIT", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("config", "core.ignorecase", "true")
		r.Write(".gitignore", "*.LOG\nBuild/\n")
		r.Write("x.log", "ignored regardless of case\n")
		r.Write("build/out.o", "ignored folder\n")
		r.Write("keep.txt", "recorded\n")
		r.Write(".GIT/stray", "a .git in another case is never recorded\n")
	}},
	{name: "core.ignorecase off", setup: func(t *testing.T, r *gittest.Repo) {
		r.Git("config", "core.ignorecase", "false")
		r.Write(".gitignore", "*.LOG\n")
		r.Write("x.log", "recorded: case matters\n")
		mustRename(t, r, "a.txt", "A.txt")
	}},
	{name: "nested untracked repository", setup: func(t *testing.T, r *gittest.Repo) {
		nested := filepath.Join(r.Dir, "vendor/nested")
		r.Write("vendor/nested/n.txt", "nested\n")
		mustGit(t, nested, "init", "-q", "-b", "main")
		mustGit(t, nested, "add", "-A")
		mustGit(t, nested, "commit", "-qm", "nested")
		r.Write("vendor/nested/dirty.txt", "not recorded: gitlink only\n")
		r.Write("vendor/other.txt", "recorded\n")
	}},
	{name: "folder with a .git file that is not a repository", setup: func(t *testing.T, r *gittest.Repo) {
		r.Write("notrepo/.git", "just a file named .git\n")
		r.Write("notrepo/f.txt", "recorded: git descends into it\n")
		r.Write("dir/.git/x", "a folder named .git is never recorded\n")
	}},
	{name: "submodule", setup: func(t *testing.T, r *gittest.Repo) {
		up := filepath.Join(filepath.Dir(r.Dir), "upstream")
		gittest.WriteFile(t, filepath.Join(up, "u.txt"), "u\n")
		mustGit(t, up, "init", "-q", "-b", "main")
		mustGit(t, up, "add", "-A")
		mustGit(t, up, "commit", "-qm", "up")
		r.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", up, "mods/sub")
		r.Git("commit", "-qm", "submodule")
		r.Write("mods/sub/u.txt", "dirty inside the submodule\n")
		r.Write("mods/sub/new.txt", "untracked inside the submodule\n")
		r.Write("a.txt", "changed\n")
	}},
	{name: "submodule moved to another commit", setup: func(t *testing.T, r *gittest.Repo) {
		up := filepath.Join(filepath.Dir(r.Dir), "upstream")
		gittest.WriteFile(t, filepath.Join(up, "u.txt"), "u\n")
		mustGit(t, up, "init", "-q", "-b", "main")
		mustGit(t, up, "add", "-A")
		mustGit(t, up, "commit", "-qm", "up")
		r.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", up, "sub")
		r.Git("commit", "-qm", "submodule")
		sub := filepath.Join(r.Dir, "sub")
		gittest.WriteFile(t, filepath.Join(sub, "u.txt"), "next\n")
		mustGit(t, sub, "commit", "-qam", "next")
	}},
	{name: "submodule removed from the work tree", setup: func(t *testing.T, r *gittest.Repo) {
		up := filepath.Join(filepath.Dir(r.Dir), "upstream")
		gittest.WriteFile(t, filepath.Join(up, "u.txt"), "u\n")
		mustGit(t, up, "init", "-q", "-b", "main")
		mustGit(t, up, "add", "-A")
		mustGit(t, up, "commit", "-qm", "up")
		r.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", up, "sub")
		r.Git("commit", "-qm", "submodule")
		r.Remove("sub")
	}},
	{name: "uninitialised submodule", setup: func(t *testing.T, r *gittest.Repo) {
		up := filepath.Join(filepath.Dir(r.Dir), "upstream")
		gittest.WriteFile(t, filepath.Join(up, "u.txt"), "u\n")
		mustGit(t, up, "init", "-q", "-b", "main")
		mustGit(t, up, "add", "-A")
		mustGit(t, up, "commit", "-qm", "up")
		r.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", up, "sub")
		r.Git("commit", "-qm", "submodule")
		r.Git("submodule", "deinit", "-q", "sub")
	}},
	{name: "many files in one folder", setup: func(t *testing.T, r *gittest.Repo) {
		for i := 0; i < 600; i++ {
			r.Write(filepath.Join("many", strings.Repeat("x", i%7)+string(rune('a'+i%26))+strconv.Itoa(i)), strconv.Itoa(i))
		}
		r.Commit("many")
		for i := 0; i < 600; i += 37 {
			r.Write(filepath.Join("many", strings.Repeat("x", i%7)+string(rune('a'+i%26))+strconv.Itoa(i)), "changed")
		}
		r.Write("many/untracked", "u")
	}},
}

func mustRename(t *testing.T, r *gittest.Repo, from, to string) {
	t.Helper()
	if err := os.Rename(filepath.Join(r.Dir, from), filepath.Join(r.Dir, to)); err != nil {
		t.Fatal(err)
	}
}

func blobOf(t *testing.T, r *gittest.Repo, path string) string {
	t.Helper()
	return strings.TrimSpace(r.Git("rev-parse", "HEAD:"+path))
}

func mustGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := git.Run(context.Background(), dir, args...); err != nil {
		t.Fatalf("git %s in %s: %v", strings.Join(args, " "), dir, err)
	}
}

// TestSnapshotMatchesGit checks the snapshot against git itself: the
// worktree tree is the tree `git add -A` stages in a copy of the index, and
// the index tree is what `git write-tree` writes.
func TestSnapshotMatchesGit(t *testing.T) {
	for _, tc := range oracleCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ownHome {
				gittest.Seal(t)
			} else {
				t.Parallel()
			}
			r := gittest.New(t)
			if !tc.unborn {
				base(t, r)
			}
			tc.setup(t, r)
			checkOracle(t, r.Dir)
		})
	}
}

// checkOracle snapshots the repository at dir twice (the second time from
// the stat cache and the object database) and compares both with git.
func checkOracle(t *testing.T, dir string) {
	t.Helper()
	s1 := snap(t, dir)
	s2 := snap(t, dir)
	if s1.Worktree != s2.Worktree || s1.IndexTree != s2.IndexTree {
		t.Errorf("second snapshot differs: index %s then %s, worktree %s then %s",
			s1.IndexTree, s2.IndexTree, s1.Worktree, s2.Worktree)
	}
	wantIndex, wantWork := oracle(t, dir)
	if got := s1.IndexTree.String(); got != wantIndex {
		t.Errorf("IndexTree = %s, git write-tree = %s\n%s", got, wantIndex,
			cmp.Diff(lsTree(t, dir, wantIndex), lsTree(t, dir, got)))
	}
	if got := s1.Worktree.String(); got != wantWork {
		t.Logf("stats: first %+v, second %+v", s1.Stats, s2.Stats)
		t.Errorf("Worktree = %s, git add -A = %s\n%s", got, wantWork,
			cmp.Diff(lsTree(t, dir, wantWork), lsTree(t, dir, got)))
	}
}

// TestSnapshotLinkedWorktree snapshots a linked worktree (git worktree add):
// its own index and HEAD, the shared object database and info/exclude.
func TestSnapshotLinkedWorktree(t *testing.T) {
	r := gittest.New(t)
	base(t, r)
	gittest.WriteFile(t, filepath.Join(r.Dir, ".git/info/exclude"), "*.secret\n")
	wt := filepath.Join(filepath.Dir(r.Dir), "linked")
	r.Git("worktree", "add", "-q", "-b", "side", wt)
	gittest.WriteFile(t, filepath.Join(wt, "a.txt"), "changed in linked worktree\n")
	gittest.WriteFile(t, filepath.Join(wt, "new.txt"), "untracked in linked worktree\n")
	gittest.WriteFile(t, filepath.Join(wt, "x.secret"), "ignored by the common info/exclude\n")
	if err := os.Remove(filepath.Join(wt, "dir/b.txt")); err != nil {
		t.Fatal(err)
	}
	r.Write("main-only.txt", "untracked in the main worktree\n")
	checkOracle(t, wt)
	checkOracle(t, r.Dir)

	ws := openWS(t, wt)
	if !strings.Contains(ws.StateDir(), filepath.Join(".git", "worktrees")) {
		t.Errorf("StateDir of a linked worktree = %s, want it under .git/worktrees/", ws.StateDir())
	}
	head, err := ws.ReadHead(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if head.Ref != "refs/heads/side" {
		t.Errorf("linked worktree HEAD ref = %q, want refs/heads/side", head.Ref)
	}
}
