package gittest_test

import (
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// TestUserStateSeesEveryChange: each change to what invariant 1 protects
// changes the digest; a ref under refs/agent-checkpoints/ does not.
func TestUserStateSeesEveryChange(t *testing.T) {
	cases := []struct {
		name    string
		change  func(r *gittest.Repo)
		changes bool
	}{
		{"nothing", func(r *gittest.Repo) {}, false},
		{"checkpoint ref", func(r *gittest.Repo) {
			r.Git("update-ref", "refs/agent-checkpoints/runs/x", "HEAD")
		}, false},
		{"branch moved", func(r *gittest.Repo) { r.Commit("two") }, true},
		{"branch moved without reflog", func(r *gittest.Repo) {
			r.Git("update-ref", "--no-deref", "refs/heads/main", r.Git("commit-tree", "-m", "x", "HEAD^{tree}"))
		}, true},
		{"other branch checked out", func(r *gittest.Repo) { r.Git("checkout", "-q", "-b", "side") }, true},
		{"HEAD detached", func(r *gittest.Repo) { r.Git("checkout", "-q", "--detach") }, true},
		{"HEAD symref retargeted", func(r *gittest.Repo) { r.Git("symbolic-ref", "HEAD", "refs/heads/unborn") }, true},
		{"new tag", func(r *gittest.Repo) { r.Git("tag", "v1") }, true},
		{"stash", func(r *gittest.Repo) {
			r.Write("a.txt", "changed\n")
			r.Git("stash", "-q")
		}, true},
		{"index", func(r *gittest.Repo) {
			r.Write("b.txt", "b\n")
			r.Git("add", "b.txt")
		}, true},
		{"config", func(r *gittest.Repo) { r.Git("config", "user.x", "y") }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := gittest.New(t)
			r.Write("a.txt", "a\n")
			r.Commit("init")
			before, err := gittest.UserState(r.Dir, false)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(r)
			after, err := gittest.UserState(r.Dir, false)
			if err != nil {
				t.Fatal(err)
			}
			if (before != after) != tc.changes {
				t.Errorf("digest changed: %v, want %v\n%s", before != after, tc.changes, gittest.Diff(before, after))
			}
		})
	}
}

// TestUserStateStashDrop: dropping one of two stash entries leaves
// refs/stash where it was but changes its reflog: the digest sees it.
func TestUserStateStashDrop(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	r.Write("a.txt", "one\n")
	r.Git("stash", "-q")
	r.Write("a.txt", "two\n")
	r.Git("stash", "-q")
	before, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	r.Git("stash", "drop", "-q", "stash@{1}")
	after, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if before == after {
		t.Error("dropping an older stash entry left the digest unchanged")
	}
}

// TestUserStateLinkedWorktree: in a linked worktree the digest follows the
// worktree's own HEAD.
func TestUserStateLinkedWorktree(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	wt := t.TempDir() + "/linked"
	r.Git("worktree", "add", "-q", "-b", "side", wt)
	before, err := gittest.UserState(wt, false)
	if err != nil {
		t.Fatal(err)
	}
	r.Git("-C", wt, "checkout", "-q", "--detach")
	after, err := gittest.UserState(wt, false)
	if err != nil {
		t.Fatal(err)
	}
	if before == after {
		t.Error("detaching the linked worktree's HEAD left its digest unchanged")
	}
}
