package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/record"
)

// isNestedRepo reports whether dir is the top of a non-bare repository:
// dir/.git is a git directory, or a gitfile ("gitdir: <path>") naming one.
// Like git's is_nonbare_repository_dir, a folder with some other .git (an
// empty folder, a stray file) is an ordinary folder.
func isNestedRepo(dir string) bool {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return false
	}
	if fi.IsDir() {
		return isGitDir(dotgit)
	}
	if !fi.Mode().IsRegular() {
		return false
	}
	data, err := os.ReadFile(dotgit)
	if err != nil {
		return false
	}
	target, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
	if !ok || target == "" {
		return false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return isGitDir(target)
}

// isGitDir is git's is_git_directory: a HEAD, and objects/ and refs/
// folders (in the common dir named by a "commondir" file, for worktrees).
func isGitDir(gd string) bool {
	if _, err := os.Stat(filepath.Join(gd, "HEAD")); err != nil {
		return false
	}
	common := gd
	if data, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
		c := strings.TrimRight(string(data), "\r\n")
		if !filepath.IsAbs(c) {
			c = filepath.Join(gd, c)
		}
		common = c
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(common, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// nested records an untracked nested repository as a gitlink to its HEAD,
// as `git add` would, without reading or touching anything inside it.
func (s *scan) nested(rel string) {
	out, err := git.Run(context.Background(), s.w.Abs(rel), "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil {
		s.skip(rel, "nested repository without commits; not recorded")
		return
	}
	h, err := record.ParseHash(strings.TrimSpace(string(out)))
	if err != nil {
		s.skip(rel, "nested repository with unreadable HEAD; not recorded")
		return
	}
	s.mu.Lock()
	s.untracked = append(s.untracked, flatEntry{path: rel, mode: record.ModeGitlink, hash: h})
	s.mu.Unlock()
}
