//go:build unix

package gitrefs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gitguard/gitguard/record"
)

// A ref's lock left by a killed writer is broken once nobody can hold it:
// no gitguard process holds the writers file, git packs no refs, and it is
// old enough not to be a hand-typed git update-ref's. Until then the update
// finds the ref busy and the lock is left as it is.
func TestStaleLockIsBroken(t *testing.T) {
	r, s, one, two := twoCommits(t)
	ctx := context.Background()
	ref := RunRef("killed")
	if err := s.Update(ctx, ref, one, record.ZeroHash, "create"); err != nil {
		t.Fatal(err)
	}
	git := filepath.Join(r.Dir, ".git")
	lock := filepath.Join(git, filepath.FromSlash(ref)) + ".lock"
	// What a writer killed after flushing its new value leaves.
	leave := func(age time.Duration) {
		t.Helper()
		if err := os.WriteFile(lock, []byte(two.String()+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(lock, when, when); err != nil {
			t.Fatal(err)
		}
	}
	busy := func(why string) {
		t.Helper()
		if err := s.Update(ctx, ref, two, one, "x"); !errors.Is(err, ErrRefChanged) {
			t.Fatalf("%s: update = %v, want ErrRefChanged", why, err)
		}
		if _, err := os.Stat(lock); err != nil {
			t.Fatalf("%s: the lock was broken: %v", why, err)
		}
		if got := r.Git("rev-parse", ref); got != one.String() {
			t.Fatalf("%s: the ref moved to %s", why, got)
		}
	}

	leave(0)
	busy("a lock just taken")

	leave(time.Hour)
	release, ok := lockFile(s.writersFile(), false) // a live gitguard writer, however slow
	if !ok {
		t.Fatal("cannot lock the writers file")
	}
	busy("a lock while a gitguard writer is at work")
	release()

	packing := filepath.Join(git, "packed-refs.lock")
	if err := os.WriteFile(packing, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	busy("a lock while git packs refs")
	if err := os.Remove(packing); err != nil {
		t.Fatal(err)
	}

	// Nobody's: broken, and the update is made as git would make it.
	if err := s.Update(ctx, ref, two, one, "after the kill"); err != nil {
		t.Fatalf("update over a stale lock: %v", err)
	}
	if got := r.Git("rev-parse", ref); got != two.String() {
		t.Fatalf("git sees %s, want %s", got, two)
	}
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the lock is still there: %v", err)
	}

	// git update-ref -d, which Delete runs, would fail on it too.
	leave(time.Hour)
	if err := s.Delete(ctx, ref, two); err != nil {
		t.Fatalf("delete beside a stale lock: %v", err)
	}
	if out := r.Git("for-each-ref", ref); out != "" {
		t.Fatalf("the ref is still there: %s", out)
	}
	r.Git("fsck", "--strict")
}
