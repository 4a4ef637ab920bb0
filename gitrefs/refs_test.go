package gitrefs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// twoCommits is a repository with two commits, and a Store on it.
func twoCommits(t *testing.T) (r *gittest.Repo, s *Store, one, two record.Hash) {
	t.Helper()
	r = gittest.New(t)
	r.Commit("one")
	one, _ = record.ParseHash(r.Git("rev-parse", "HEAD"))
	r.Commit("two")
	two, _ = record.ParseHash(r.Git("rev-parse", "HEAD"))
	s, err := Open(context.Background(), r.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r, s, one, two
}

// Read agrees with git for loose refs, packed refs, refs packed and then
// updated loose, and refs that do not exist; Update is compare-and-swap.
func TestReadAndUpdateMatchGit(t *testing.T) {
	r, s, one, two := twoCommits(t)
	ctx := context.Background()
	a, b := RunRef("a"), RunRef("b")
	if err := s.Update(ctx, a, one, record.ZeroHash, "create"); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, a, two, record.ZeroHash, "create again"); !errors.Is(err, ErrRefChanged) {
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
			want := record.ZeroHash
			if out, err := git.Run(ctx, r.Dir, "rev-parse", "-q", "--verify", ref); err == nil {
				want, _ = record.ParseHash(string(out[:40]))
			}
			if got != want {
				t.Errorf("%s: Read(%s) = %s, git says %s", stage, ref, got, want)
			}
		}
	}
	check("loose")
	if err := s.Update(ctx, b, two, record.ZeroHash, "create"); err != nil {
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

// Update takes git's own lock: a ref locked by another writer is refused
// and its lock left alone; a ref only in packed-refs is updated over its
// packed value; a ref with a reflog is left to git, which appends to it;
// concurrent compare-and-swap loops never lose an update.
func TestUpdateLocksAsGitDoes(t *testing.T) {
	r, s, one, two := twoCommits(t)
	ctx := context.Background()
	ref := RunRef("locked")
	if err := s.Update(ctx, ref, one, record.ZeroHash, "create"); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(r.Dir, ".git", filepath.FromSlash(ref)) + ".lock"
	if err := os.WriteFile(lock, []byte("held by git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, ref, two, one, "x"); !errors.Is(err, ErrRefChanged) {
		t.Fatalf("update of a locked ref: %v, want ErrRefChanged", err)
	}
	if data, err := os.ReadFile(lock); err != nil || string(data) != "held by git\n" {
		t.Fatalf("another writer's lock was touched: %q, %v", data, err)
	}
	os.Remove(lock)

	r.Git("pack-refs", "--all", "--prune")
	if _, err := os.Stat(filepath.Join(r.Dir, ".git", filepath.FromSlash(ref))); !os.IsNotExist(err) {
		t.Fatalf("ref still loose after pack-refs: %v", err)
	}
	if err := s.Update(ctx, ref, two, two, "wrong old"); !errors.Is(err, ErrRefChanged) {
		t.Fatalf("packed ref, wrong old value: %v", err)
	}
	if err := s.Update(ctx, ref, two, one, "over the packed value"); err != nil {
		t.Fatal(err)
	}
	if got := r.Git("rev-parse", ref); got != two.String() {
		t.Fatalf("git sees %s, want %s", got, two)
	}

	logged := RunRef("logged")
	r.Git("update-ref", "--create-reflog", "-m", "start", logged, one.String())
	if err := s.Update(ctx, logged, two, one, "gitguard: moved"); err != nil {
		t.Fatal(err)
	}
	if out := r.Git("reflog", "show", "--format=%gs", logged); !strings.Contains(out, "gitguard: moved") {
		t.Fatalf("the ref's reflog was not appended to:\n%s", out)
	}

	// Eight writers move one ref back and forth; each success must be seen
	// by exactly the writer that made it (no lost or doubled update).
	race := RunRef("race")
	if err := s.Update(ctx, race, one, record.ZeroHash, "create"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var moves atomic.Int64
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				cur, err := s.Read(ctx, race)
				if err != nil {
					t.Error(err)
					return
				}
				next := one
				if cur == one {
					next = two
				}
				err = s.Update(ctx, race, next, cur, "race")
				switch {
				case err == nil:
					moves.Add(1)
				case !errors.Is(err, ErrRefChanged):
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	want := one
	if moves.Load()%2 == 1 {
		want = two
	}
	if got := r.Git("rev-parse", race); got != want.String() {
		t.Fatalf("after %d moves the ref is %s, want %s", moves.Load(), got, want)
	}
	if moves.Load() == 0 {
		t.Fatal("no update succeeded")
	}
}

// A git pack-refs (as git gc runs it) that packs a ref just updated and
// prunes its emptied folder before the folder is synced does not turn the
// update into a failure: the value is git's packed ref.
func TestUpdateBesidePackRefsPruningTheFolder(t *testing.T) {
	r, s, one, two := twoCommits(t)
	ctx := context.Background()
	ref := RunRef("packed")
	if err := s.Update(ctx, ref, one, record.ZeroHash, "create"); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(r.Dir, ".git", "refs", "agent-checkpoints", "runs")
	afterRename = func() { r.Git("pack-refs", "--all", "--prune") }
	defer func() { afterRename = nil }()
	if err := s.Update(ctx, ref, two, one, "update"); err != nil {
		t.Fatalf("update with the ref packed and its folder pruned meanwhile: %v", err)
	}
	if _, err := os.Stat(folder); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the folder is still there (%v): the test did not prune it", err)
	}
	if got := r.Git("rev-parse", ref); got != two.String() {
		t.Fatalf("git rev-parse %s = %s, want %s", ref, got, two)
	}
}

// UpdateAlongside moves the ref only once Ready says so, with the ref
// locked meanwhile against git and other writers; a Ready that fails
// leaves the ref where it was, no lock behind and Moved not run. Moved
// runs once the ref is at its new value, and the update returns after it.
// With a reflog git does the update, after Ready and before Moved too.
func TestUpdateAlongside(t *testing.T) {
	r, s, one, two := twoCommits(t)
	ctx := context.Background()
	ref := RunRef("ready")
	lock := filepath.Join(r.Dir, ".git", filepath.FromSlash(ref)+".lock")
	if err := s.Update(ctx, ref, one, record.ZeroHash, "create"); err != nil {
		t.Fatal(err)
	}
	at := func() string { return strings.TrimSpace(r.Git("rev-parse", ref)) }
	moved := 0
	whenMoved := func() {
		moved++
		if got := at(); got != two.String() {
			t.Errorf("Moved ran with the ref at %s, want %s", got, two)
		}
	}
	failed := errors.New("objects not durable")
	err := s.UpdateAlongside(ctx, ref, two, one, "refused", Alongside{
		Ready: func() error {
			if _, err := os.Stat(lock); err != nil {
				t.Errorf("ready called without the ref locked: %v", err)
			}
			if out, err := git.Run(ctx, r.Dir, "update-ref", ref, two.String(), one.String()); err == nil {
				t.Errorf("git moved the ref while it was locked: %s", out)
			}
			return failed
		},
		Moved: whenMoved,
	})
	if !errors.Is(err, failed) {
		t.Fatalf("UpdateAlongside with a failing Ready: %v, want %v", err, failed)
	}
	if got := at(); got != one.String() {
		t.Errorf("ref at %s after a refused update, want %s", got, one)
	}
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left behind: %v", err)
	}
	if moved != 0 {
		t.Errorf("Moved ran for a refused update")
	}
	calls := 0
	err = s.UpdateAlongside(ctx, ref, two, one, "ready", Alongside{Ready: func() error { calls++; return nil }, Moved: whenMoved})
	if err != nil || calls != 1 || moved != 1 {
		t.Fatalf("UpdateAlongside: %v, Ready called %d times, Moved %d", err, calls, moved)
	}
	if got := at(); got != two.String() {
		t.Errorf("ref at %s, want %s", got, two)
	}

	// A ref with a reflog: git updates it, and only after Ready.
	r.Git("update-ref", "--create-reflog", "-m", "log", ref, one.String(), two.String())
	err = s.UpdateAlongside(ctx, ref, two, one, "refused", Alongside{Ready: func() error { return failed }, Moved: whenMoved})
	if !errors.Is(err, failed) {
		t.Fatalf("UpdateAlongside through git with a failing Ready: %v", err)
	}
	if got := at(); got != one.String() {
		t.Errorf("git moved the ref before Ready: at %s, want %s", got, one)
	}
	if err := s.UpdateAlongside(ctx, ref, two, one, "ready", Alongside{Ready: func() error { return nil }, Moved: whenMoved}); err != nil {
		t.Fatal(err)
	}
	if got := at(); got != two.String() {
		t.Errorf("ref at %s after the update through git, want %s", got, two)
	}
	if moved != 2 {
		t.Errorf("Moved ran %d times for two updates", moved)
	}
}
