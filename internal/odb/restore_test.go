package odb_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// Objects written by this process and then deleted by git prune (as a git
// gc --prune=now racing a checkpoint does) are written back by
// Ensure: trees and small blobs from memory, a big blob streamed from
// a file by reading the file again. A blob whose file changed since cannot
// be, and is reported with the path it has in the tree.
func TestEnsureWritesBackPruned(t *testing.T) {
	r, db := open(t)
	big := strings.Repeat("big file line\n", 100_000) // over the in-memory limit
	bigPath := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(bigPath, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	bigID, err := db.WriteFile(bigPath, int64(len(big)))
	if err != nil {
		t.Fatal(err)
	}
	small, err := db.Write(odb.TypeBlob, []byte("small\n"))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := db.WriteTree([]odb.TreeEntry{{Name: "big", Mode: odb.ModeFile, Hash: bigID}})
	if err != nil {
		t.Fatal(err)
	}
	root, err := db.WriteTree([]odb.TreeEntry{
		{Name: "dir", Mode: odb.ModeTree, Hash: sub},
		{Name: "small", Mode: odb.ModeFile, Hash: small},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	r.Git("prune", "--expire=now")
	for _, h := range []git.Hash{bigID, small, sub, root} {
		if _, err := os.Lstat(loosePath(r.Dir, h)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("git prune left %s: %v", h, err)
		}
	}
	n, err := db.Ensure(nil, [2]git.Hash{root, git.ZeroHash})
	if err != nil || n != 4 {
		t.Fatalf("Ensure = %d, %v; want 4 written back", n, err)
	}
	r.Git("update-ref", "refs/test/root", r.Git("commit-tree", "-m", "x", root.String()))
	r.Git("fsck", "--strict", "--no-dangling")
	if got := r.Git("cat-file", "-p", bigID.String()); got+"\n" != big {
		t.Error("big blob written back with other content")
	}

	// Nothing missing: nothing written.
	if n, err := db.Ensure(nil, [2]git.Hash{root, git.ZeroHash}); err != nil || n != 0 {
		t.Errorf("Ensure of an intact tree = %d, %v", n, err)
	}

	// The file changed: the blob cannot come back, and says where it was.
	r.Git("update-ref", "-d", "refs/test/root")
	r.Git("prune", "--expire=now")
	if err := os.WriteFile(bigPath, []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = db.Ensure(nil, [2]git.Hash{root, git.ZeroHash})
	var me *odb.MissingError
	if !errors.As(err, &me) || me.ID != bigID || me.Path != "dir/big" || !errors.Is(err, odb.ErrMissing) || !errors.Is(err, odb.ErrCannotRestore) {
		t.Fatalf("Ensure with a changed source = %v; want the big blob at dir/big missing", err)
	}
}

// Objects reachable from the base are not looked at: they were reachable
// from a ref all along. Only what differs is checked.
func TestEnsureSkipsBase(t *testing.T) {
	_, db := open(t)
	absent := git.Hash{0xde, 0xad} // named by the base, never stored
	base, err := db.WriteTree([]odb.TreeEntry{{Name: "a", Mode: odb.ModeFile, Hash: absent}})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := db.Write(odb.TypeBlob, []byte("new\n"))
	if err != nil {
		t.Fatal(err)
	}
	next, err := db.WriteTree([]odb.TreeEntry{
		{Name: "a", Mode: odb.ModeFile, Hash: absent},
		{Name: "new", Mode: odb.ModeFile, Hash: fresh},
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := db.Ensure(nil, [2]git.Hash{next, base}); err != nil || n != 0 {
		t.Fatalf("Ensure against the base = %d, %v; want nothing to do", n, err)
	}
	// Without the base the absent blob is found missing.
	_, err = db.Ensure(nil, [2]git.Hash{next, git.ZeroHash})
	var me *odb.MissingError
	if !errors.As(err, &me) || me.ID != absent || me.Path != "a" {
		t.Fatalf("Ensure without a base = %v; want %s at a missing", err, absent)
	}
}

// A run's first checkpoint is checked as (worktree, HEAD's tree), (index,
// HEAD's tree), (root, nothing). When the index tree is HEAD's tree, the
// root names it, and what it names was reachable from a ref all along: the
// root's walk does not go through it (it used to, reading every tree of
// the repository).
func TestEnsureSkipsBaseNamedLater(t *testing.T) {
	_, db := open(t)
	absent := git.Hash{0xde, 0xad} // named by HEAD's tree, never stored
	head, err := db.WriteTree([]odb.TreeEntry{{Name: "a", Mode: odb.ModeFile, Hash: absent}})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := db.Write(odb.TypeBlob, []byte("new\n"))
	if err != nil {
		t.Fatal(err)
	}
	worktree, err := db.WriteTree([]odb.TreeEntry{
		{Name: "a", Mode: odb.ModeFile, Hash: absent},
		{Name: "new", Mode: odb.ModeFile, Hash: fresh},
	})
	if err != nil {
		t.Fatal(err)
	}
	root, err := db.WriteTree([]odb.TreeEntry{
		{Name: "index", Mode: odb.ModeTree, Hash: head},
		{Name: "worktree", Mode: odb.ModeTree, Hash: worktree},
	})
	if err != nil {
		t.Fatal(err)
	}
	pairs := [][2]git.Hash{{worktree, head}, {head, head}, {root, git.ZeroHash}}
	if n, err := db.Ensure(nil, pairs...); err != nil || n != 0 {
		t.Fatalf("Ensure of a first checkpoint = %d, %v; want nothing to do", n, err)
	}
	// The root alone is walked through HEAD's tree and finds the blob missing.
	_, err = db.Ensure(nil, [2]git.Hash{root, git.ZeroHash})
	var me *odb.MissingError
	if !errors.As(err, &me) || me.ID != absent || me.Path != "index/a" {
		t.Fatalf("Ensure of the root alone = %v; want %s at index/a missing", err, absent)
	}
	// Something new under the root outside both pairs is still checked.
	other := git.Hash{0xbe, 0xef}
	root2, err := db.WriteTree([]odb.TreeEntry{
		{Name: "extra", Mode: odb.ModeFile, Hash: other},
		{Name: "index", Mode: odb.ModeTree, Hash: head},
		{Name: "worktree", Mode: odb.ModeTree, Hash: worktree},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Ensure(nil, [2]git.Hash{worktree, head}, [2]git.Hash{head, head}, [2]git.Hash{root2, git.ZeroHash})
	if !errors.As(err, &me) || me.ID != other || me.Path != "extra" {
		t.Fatalf("Ensure with a new entry = %v; want %s at extra missing", err, other)
	}
}

// A checkpoint is checked before its ref moves and again after: the second
// Ensure with the same arguments checks the objects the first walk found
// without reading trees, and still writes back what a git prune deleted in
// between, or reports what it cannot, with its path.
func TestEnsureAgainAfterPrune(t *testing.T) {
	r, db := open(t)
	blob, err := db.Write(odb.TypeBlob, []byte("kept in memory\n"))
	if err != nil {
		t.Fatal(err)
	}
	absent := git.Hash{0xab} // never stored, never remembered
	sub, err := db.WriteTree([]odb.TreeEntry{{Name: "f", Mode: odb.ModeFile, Hash: blob}})
	if err != nil {
		t.Fatal(err)
	}
	root, err := db.WriteTree([]odb.TreeEntry{{Name: "dir", Mode: odb.ModeTree, Hash: sub}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	if n, err := db.Ensure(nil, [2]git.Hash{root, git.ZeroHash}); err != nil || n != 0 {
		t.Fatalf("first Ensure = %d, %v", n, err)
	}
	r.Git("prune", "--expire=now")
	if n, err := db.Ensure(nil, [2]git.Hash{root, git.ZeroHash}); err != nil || n != 3 {
		t.Fatalf("Ensure after a prune = %d, %v; want 3 written back", n, err)
	}
	r.Git("update-ref", "refs/test/root", r.Git("commit-tree", "-m", "x", root.String()))
	r.Git("fsck", "--strict", "--no-dangling")

	// Another tree naming an object nothing can write back: the walk fails,
	// so nothing is remembered from it, and the next call walks again.
	bad, err := db.WriteTree([]odb.TreeEntry{
		{Name: "dir", Mode: odb.ModeTree, Hash: sub},
		{Name: "gone", Mode: odb.ModeFile, Hash: absent},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		_, err = db.Ensure(nil, [2]git.Hash{bad, git.ZeroHash})
		var me *odb.MissingError
		if !errors.As(err, &me) || me.ID != absent || me.Path != "gone" {
			t.Fatalf("Ensure %d of a tree naming a lost object = %v; want %s at gone missing", i, err, absent)
		}
	}
}
