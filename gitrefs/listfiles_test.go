package gitrefs

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/record"
)

// gitList is what git for-each-ref says is under prefix.
func gitList(t *testing.T, dir, prefix string) []Ref {
	t.Helper()
	out, err := git.Run(context.Background(), dir, "for-each-ref", "--format=%(objectname) %(refname)", "--", prefix)
	if err != nil {
		t.Fatal(err)
	}
	var refs []Ref
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if id, name, ok := strings.Cut(line, " "); ok {
			h, _ := record.ParseHash(id)
			refs = append(refs, Ref{Name: name, Hash: h})
		}
	}
	return refs
}

// Listing refs from the files agrees with git for-each-ref: loose refs,
// packed ones, packed ones updated loose since (the loose value wins),
// refs deleted after packing, nested folders, a writer's lock file; and
// it leaves to git what it does not read itself.
func TestListFilesMatchesGit(t *testing.T) {
	r, s, one, two := twoCommits(t)
	ctx := context.Background()
	check := func(stage string, fromGit ...string) {
		t.Helper()
		for _, prefix := range []string{Namespace, Namespace + "runs/", quarantinePrefix} {
			want := gitList(t, r.Dir, prefix)
			got, ok := s.listFiles(prefix)
			if wantFiles := !slices.Contains(fromGit, prefix); ok != wantFiles {
				t.Errorf("%s: %s read from the files: %v, want %v", stage, prefix, ok, wantFiles)
			}
			if !ok {
				got, _ = s.list(ctx, prefix)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s lists %v, git %v", stage, prefix, got, want)
			}
		}
	}
	check("no refs")
	for _, name := range []string{"a", "b", "c-d", "e"} {
		if err := s.Update(ctx, RunRef(record.RunID(name)), one, record.ZeroHash, "create"); err != nil {
			t.Fatal(err)
		}
	}
	r.Git("update-ref", quarantinePrefix+"1-x/runs/q", two.String())
	check("loose")
	r.Git("pack-refs", "--all")
	check("packed")
	if err := s.Update(ctx, RunRef("a"), two, one, "move"); err != nil {
		t.Fatal(err)
	}
	r.Git("update-ref", "-d", RunRef("b"))
	if err := os.WriteFile(filepath.Join(r.Dir, ".git", filepath.FromSlash(RunRef("e"))+".lock"), []byte(two.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("packed, then one moved loose, one deleted, one locked")
	// A symbolic ref under the namespace: git resolves it.
	r.Git("symbolic-ref", Namespace+"runs/sym", RunRef("a"))
	check("a symbolic ref", Namespace, Namespace+"runs/")
}

// A run ref that names a missing object (a damaged run) is listed, so
// that the commands looking at every run read the others; git
// for-each-ref dies on it.
func TestListFilesKeepsDamagedRef(t *testing.T) {
	r, s, one, _ := twoCommits(t)
	ctx := context.Background()
	if err := s.Update(ctx, RunRef("good"), one, record.ZeroHash, "create"); err != nil {
		t.Fatal(err)
	}
	missing, _ := record.ParseHash(strings.Repeat("12", 20))
	path := filepath.Join(r.Dir, ".git", filepath.FromSlash(RunRef("damaged")))
	if err := os.WriteFile(path, []byte(missing.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(path) }) // before the repository's own fsck
	refs, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Ref{{Name: RunRef("damaged"), Hash: missing}, {Name: RunRef("good"), Hash: one}}
	if !slices.Equal(refs, want) {
		t.Errorf("List = %v, want %v", refs, want)
	}
}

// A file far longer than any ref under the refs (an agent's, say) is not
// read whole: the listing is left to git, which ignores it as broken.
func TestListFilesLeavesOversizeFileToGit(t *testing.T) {
	r, s, one, _ := twoCommits(t)
	ctx := context.Background()
	if err := s.Update(ctx, RunRef("good"), one, record.ZeroHash, "create"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.Dir, ".git", filepath.FromSlash(RunRef("huge")))
	if err := os.WriteFile(path, []byte(one.String()+strings.Repeat("\n", 1<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(path) }) // before the repository's own fsck
	if _, ok := s.listFiles(Namespace); ok {
		t.Fatal("a 1 MiB ref file was read as a ref")
	}
	refs, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := gitList(t, r.Dir, Namespace); !slices.Equal(refs, want) {
		t.Errorf("List = %v, git lists %v", refs, want)
	}
}

// A loose ref read once is remembered by its file's identity: listed
// again, it comes from memory; rewritten in place (same size, even with
// its old modification time put back) or replaced as git does, it is read
// again; one written just now is not remembered at all.
func TestListFilesRemembersUnchangedRefs(t *testing.T) {
	r, s, one, two := twoCommits(t)
	ctx := context.Background()
	if err := s.Update(ctx, RunRef("kept"), one, record.ZeroHash, "create"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.Dir, ".git", filepath.FromSlash(RunRef("kept")))
	remembered := func() (record.Hash, bool) {
		looseRefs.mu.Lock()
		defer looseRefs.mu.Unlock()
		seen, ok := looseRefs.m[path]
		return seen.hash, ok
	}
	list := func(stage string, want record.Hash) {
		t.Helper()
		got, ok := s.listFiles(Namespace + "runs/")
		if !ok || !slices.Equal(got, []Ref{{Name: RunRef("kept"), Hash: want}}) {
			t.Fatalf("%s: listFiles = %v, %v; want kept at %s", stage, got, ok, want.Short())
		}
	}
	list("just written", one)
	if _, ok := remembered(); ok {
		t.Error("a ref written just now is remembered")
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); git.Identify(path).Racy(time.Now()); { // its change time, just now
		if time.Now().After(deadline) {
			t.Fatal("the ref's change time stays racy")
		}
		time.Sleep(20 * time.Millisecond)
	}
	list("an hour old", one)
	if git.Identify(path).Ino == 0 {
		// No inode number (Windows): nothing may be remembered.
		if _, ok := remembered(); ok {
			t.Fatal("a ref is remembered without an inode number to tell a rewrite")
		}
	} else if h, ok := remembered(); !ok || h != one {
		t.Fatalf("an unchanged ref is not remembered: %v, %v", h, ok)
	}
	list("listed again", one)

	// In place, the same size, the old modification time put back: the
	// change time tells.
	if err := os.WriteFile(path, []byte(two.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	list("rewritten in place", two)
	if got, err := s.Read(ctx, RunRef("kept")); err != nil || got != two {
		t.Errorf("Read after the rewrite = %s, %v; want %s", got.Short(), err, two.Short())
	}

	// As git writes it: a new file renamed onto the ref.
	r.Git("update-ref", RunRef("kept"), one.String())
	list("replaced by git", one)
	if want := gitList(t, r.Dir, Namespace); !slices.Equal(want, []Ref{{Name: RunRef("kept"), Hash: one}}) {
		t.Errorf("git lists %v", want)
	}
}

// A ref packed away while the listing walks the loose files (git
// pack-refs writes packed-refs, then deletes the loose files) is not
// dropped, nor are the refs after it: the listing goes to git.
func TestListFilesRefGoneMidWalk(t *testing.T) {
	r, s, one, _ := twoCommits(t)
	ctx := context.Background()
	for _, name := range []string{"a", "b", "c"} {
		if err := s.Update(ctx, RunRef(record.RunID(name)), one, record.ZeroHash, "create"); err != nil {
			t.Fatal(err)
		}
	}
	packed := false
	beforeRead = func(string) {
		if !packed {
			packed = true
			r.Git("pack-refs", "--all")
		}
	}
	defer func() { beforeRead = nil }()
	if refs, ok := s.listFiles(Namespace); ok {
		t.Errorf("listFiles went on after a ref vanished: %v", refs)
	}
	beforeRead = nil
	refs, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := gitList(t, r.Dir, Namespace); len(refs) != 3 || !slices.Equal(refs, want) {
		t.Errorf("List = %v, git lists %v", refs, want)
	}
}
