package gitrefs

import (
	"context"
	"errors"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
)

// Read agrees with git for loose refs, packed refs, refs packed and then
// updated loose, and refs that do not exist; Update is compare-and-swap.
func TestReadAndUpdateMatchGit(t *testing.T) {
	r := gittest.New(t)
	r.Commit("one")
	one, _ := git.ParseHash(r.Git("rev-parse", "HEAD"))
	r.Commit("two")
	two, _ := git.ParseHash(r.Git("rev-parse", "HEAD"))
	repo, err := git.Discover(context.Background(), r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	s := New(repo)
	ctx := context.Background()
	a, b := RunRef("a"), RunRef("b")
	if err := s.Update(ctx, a, one, git.ZeroHash, "create"); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, a, two, git.ZeroHash, "create again"); !errors.Is(err, ErrRefChanged) {
		t.Errorf("creating an existing ref: %v, want ErrRefChanged", err)
	}
	if err := s.Update(ctx, a, two, two, "wrong old"); !errors.Is(err, ErrRefChanged) {
		t.Errorf("update with a wrong old value: %v, want ErrRefChanged", err)
	}
	if err := s.Update(ctx, "refs/heads/main", two, one, "x"); !errors.Is(err, ErrOutsideNamespace) {
		t.Errorf("update outside the namespace: %v", err)
	}
	check := func(stage string) {
		t.Helper()
		for _, ref := range []string{a, b, RunRef("missing")} {
			got, err := s.Read(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			want := git.ZeroHash
			if out, err := git.Run(ctx, r.Dir, "rev-parse", "-q", "--verify", ref); err == nil {
				want, _ = git.ParseHash(string(out[:40]))
			}
			if got != want {
				t.Errorf("%s: Read(%s) = %s, git says %s", stage, ref, got, want)
			}
		}
	}
	check("loose")
	if err := s.Update(ctx, b, two, git.ZeroHash, "create"); err != nil {
		t.Fatal(err)
	}
	r.Git("pack-refs", "--all")
	check("packed")
	if err := s.Update(ctx, a, two, one, "move"); err != nil {
		t.Fatal(err)
	}
	check("packed, then updated loose")
	if err := s.Delete(ctx, b, two); err != nil {
		t.Fatal(err)
	}
	check("deleted")
}
