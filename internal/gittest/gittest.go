// Package gittest builds throwaway repositories with the real git command
// for tests, in a sealed environment: no user or system configuration, fixed
// author and committer, so object ids come out the same on every run.
package gittest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/record"
)

// Env returns the sealed environment for a test whose home is home.
func Env(home string) []string {
	return []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test Author",
		"GIT_AUTHOR_EMAIL=author@example.com",
		"GIT_AUTHOR_DATE=1700000000 +0000",
		"GIT_COMMITTER_NAME=Test Committer",
		"GIT_COMMITTER_EMAIL=committer@example.com",
		"GIT_COMMITTER_DATE=1700000000 +0000",
		"GIT_TERMINAL_PROMPT=0",
		"TZ=UTC",
		// git status would otherwise refresh the index file, which the
		// invariant checks compare byte for byte.
		"GIT_OPTIONAL_LOCKS=0",
	}
}

// Seal sets the sealed environment in the current process for the rest of
// the test (the test must not be parallel).
func Seal(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	for _, kv := range Env(home) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return home
}

// processHome is the home Main sealed the whole test process with; empty
// when each test seals its own environment (New calls Seal then).
var processHome string

// Main seals the environment of the whole test process, as Seal does for one
// test, runs m and removes the shared home: call it from TestMain as
// os.Exit(gittest.Main(m)). New then leaves the environment as it is, so
// tests that build repositories may call t.Parallel. The shared home must
// stay as Main made it: a test that writes global git configuration (or
// anything under HOME or XDG_CONFIG_HOME) calls Seal for a home of its own
// and does not call t.Parallel.
//
// The go command keeps finding its caches and settings: GOCACHE, GOPATH,
// GOMODCACHE and GOENV are set to where they were before HOME changed.
func Main(m interface{ Run() int }) int {
	keep := map[string]string{}
	if dir, err := os.UserCacheDir(); err == nil {
		keep["GOCACHE"] = filepath.Join(dir, "go-build")
	}
	if dir, err := os.UserConfigDir(); err == nil {
		keep["GOENV"] = filepath.Join(dir, "go", "env")
	}
	if dir, err := os.UserHomeDir(); err == nil {
		keep["GOPATH"] = filepath.Join(dir, "go")
	}
	for k, v := range keep {
		if os.Getenv(k) == "" {
			os.Setenv(k, v)
		}
	}
	if os.Getenv("GOMODCACHE") == "" {
		os.Setenv("GOMODCACHE", filepath.Join(filepath.SplitList(os.Getenv("GOPATH"))[0], "pkg", "mod"))
	}
	home, err := os.MkdirTemp("", "gittest-home-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "gittest: %v\n", err)
		return 1
	}
	defer os.RemoveAll(home)
	for _, kv := range Env(home) {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	processHome = home
	return m.Run()
}

// RequireGit skips the test when git is missing, except when
// GITGUARD_TEST_REQUIRE_GIT=1 (as in CI), where it fails.
func RequireGit(t testing.TB) {
	t.Helper()
	if _, err := git.Run(context.Background(), "", "version"); err != nil {
		if os.Getenv("GITGUARD_TEST_REQUIRE_GIT") == "1" {
			t.Fatalf("git is required: %v", err)
		}
		t.Skipf("git not available: %v", err)
	}
}

// Repo is a throwaway repository.
type Repo struct {
	t   testing.TB
	Dir string
}

// New runs `git init -b main` in a fresh temporary folder, in a sealed
// environment: the test's own (Seal), unless Main sealed the whole process.
// At cleanup it checks `git fsck --strict`.
func New(t testing.TB) *Repo {
	t.Helper()
	RequireGit(t)
	if processHome == "" {
		Seal(t)
	}
	r := &Repo{t: t, Dir: filepath.Join(t.TempDir(), "repo")}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git("init", "-q", "-b", "main")
	t.Cleanup(func() {
		if out, err := git.Run(context.Background(), r.Dir, "fsck", "--strict", "--no-progress"); err != nil {
			t.Errorf("git fsck --strict: %v\n%s", err, out)
		}
	})
	return r
}

// Fixture builds the repository that testdata/repos/NAME.sh at the top of
// the module describes, in a fresh repository (see New and Apply).
func Fixture(t testing.TB, name string) *Repo {
	t.Helper()
	r := New(t)
	r.Apply(name)
	return r
}

// Apply runs the fixture script testdata/repos/NAME.sh with sh in the work
// tree, in the same sealed environment; failure is fatal.
func (r *Repo) Apply(name string) {
	r.t.Helper()
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "..", "..", "testdata", "repos", name+".sh")
	cmd := exec.Command("sh", script)
	cmd.Dir = r.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("fixture %s: %v\n%s", name, err, out)
	}
}

// Git runs git in the repository and returns its trimmed stdout; failure is fatal.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	out, err := git.Run(context.Background(), r.Dir, args...)
	if err != nil {
		r.t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimRight(string(out), "\n")
}

// Write writes a file (creating folders) relative to the work tree.
func (r *Repo) Write(path, content string) {
	r.t.Helper()
	WriteFile(r.t, filepath.Join(r.Dir, path), content)
}

// WriteFile writes content to path, creating folders.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Read returns a work-tree file's content; failure is fatal.
func (r *Repo) Read(path string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.Dir, path))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// Commit stages everything and commits.
func (r *Repo) Commit(msg string) {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
}

// UserState is a digest of everything invariant 1 says gitguard must not
// change: refs outside refs/agent-checkpoints/, HEAD, the index file, the
// stash, reflogs of user refs and the config. With worktree it also covers
// every file of the work tree (content and mode).
//
// Two git processes take it: the refs with their values (git for-each-ref)
// and where the git folders are (git rev-parse). The rest is read from the
// files themselves, which hold all that git symbolic-ref HEAD, git
// rev-parse HEAD and git stash list would print: HEAD's file (the branch,
// or the commit when detached; the branch's value is among the refs), and
// the stash (refs/stash among the refs, its entries in the reflog
// logs/refs/stash).
func UserState(dir string, worktree bool) (string, error) {
	ctx := context.Background()
	var b strings.Builder
	refs, err := git.Run(ctx, dir, "for-each-ref", "--format=%(objectname) %(refname)")
	if err != nil {
		return "", err
	}
	for _, l := range strings.SplitAfter(string(refs), "\n") {
		if !strings.Contains(l, " refs/agent-checkpoints/") {
			b.WriteString(l)
		}
	}
	gitDirOut, err := git.Run(ctx, dir, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir")
	if err != nil {
		return "", err
	}
	dirs := strings.Fields(string(gitDirOut))
	head, err := os.ReadFile(filepath.Join(dirs[0], "HEAD"))
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "HEAD: %s\n", strings.TrimSpace(string(head)))
	for _, f := range []string{filepath.Join(dirs[0], "index"), filepath.Join(dirs[0], "HEAD"), filepath.Join(dirs[1], "config")} {
		fmt.Fprintf(&b, "%s %s\n", filepath.Base(f), fileDigest(f))
	}
	logs := filepath.Join(dirs[1], "logs")
	_ = filepath.WalkDir(logs, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(p, "agent-checkpoints") {
			fmt.Fprintf(&b, "log %s %s\n", strings.TrimPrefix(p, logs), fileDigest(p))
		}
		return nil
	})
	// A linked worktree's own HEAD reflog sits in its git folder.
	if dirs[0] != dirs[1] {
		if p := filepath.Join(dirs[0], "logs", "HEAD"); fileDigest(p) != "absent" {
			fmt.Fprintf(&b, "worktree log HEAD %s\n", fileDigest(p))
		}
	}
	if worktree {
		w, err := WorktreeDigest(dir)
		if err != nil {
			return "", err
		}
		b.WriteString(w)
	}
	return b.String(), nil
}

func fileDigest(p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		return "absent"
	}
	return fmt.Sprintf("%x", sha256.Sum256(data))
}

// WorktreeDigest lists every file under dir except .git folders, with its
// mode and the sha256 of its content (a symlink's target).
func WorktreeDigest(dir string) (string, error) {
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		var sum string
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("-> %s", target)
		case info.Mode().IsRegular():
			sum = fileDigest(p)
		default:
			sum = "dir"
		}
		lines = append(lines, fmt.Sprintf("%s %v %s", rel, info.Mode(), sum))
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n", err
}

// Diff returns a line diff of two digests for error messages.
func Diff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	in := func(l []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range l {
			m[x] = true
		}
		return m
	}
	ma, mb := in(al), in(bl)
	var buf bytes.Buffer
	for _, x := range al {
		if !mb[x] {
			fmt.Fprintf(&buf, "- %s\n", x)
		}
	}
	for _, x := range bl {
		if !ma[x] {
			fmt.Fprintf(&buf, "+ %s\n", x)
		}
	}
	return buf.String()
}

// GitEnv runs git in the repository with extra environment variables (for
// example GIT_INDEX_FILE) and returns its trimmed stdout; failure is fatal.
func (r *Repo) GitEnv(env []string, args ...string) string {
	r.t.Helper()
	out, err := git.Cmd{Dir: r.Dir, Args: args, Env: env}.Run(context.Background())
	if err != nil {
		r.t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimRight(string(out), "\n")
}

// Symlink creates a symbolic link at path (relative to the work tree)
// pointing at target, creating folders and replacing what was there.
func (r *Repo) Symlink(target, path string) {
	r.t.Helper()
	full := filepath.Join(r.Dir, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.RemoveAll(full); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Symlink(target, full); err != nil {
		r.t.Fatal(err)
	}
}

// Remove deletes a file or folder (relative to the work tree) recursively.
func (r *Repo) Remove(path string) {
	r.t.Helper()
	if err := os.RemoveAll(filepath.Join(r.Dir, path)); err != nil {
		r.t.Fatal(err)
	}
}

// Chmod changes the permission bits of a work-tree file.
func (r *Repo) Chmod(path string, mode os.FileMode) {
	r.t.Helper()
	if err := os.Chmod(filepath.Join(r.Dir, path), mode); err != nil {
		r.t.Fatal(err)
	}
}

// CheckComplete fails unless every tree and blob reachable from tree is in
// the object database (gitlinks name commits of other repositories).
func CheckComplete(t testing.TB, dir string, tree record.Hash) {
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

// HasObject reports whether `git cat-file -e` finds object h in the
// repository at dir.
func HasObject(dir string, h record.Hash) bool {
	_, err := git.Run(context.Background(), dir, "cat-file", "-e", h.String())
	return err == nil
}
