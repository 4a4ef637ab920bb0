package odb_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// Sync flushes each new file and the folder naming it; the objects folder
// only when a folder in it may be new: a loose object's fan-out folder,
// or a pack folder made anew. Packs alone leave it be.
func TestSyncNames(t *testing.T) {
	objects := filepath.Join("repo", ".git", "objects")
	pack := filepath.Join(objects, "pack")
	p := func(parts ...string) string { return filepath.Join(append([]string{objects}, parts...)...) }
	for _, c := range []struct {
		name        string
		files, want []string
	}{
		{"packs", []string{p("pack", "pack-1.pack"), p("pack", "pack-1.idx")},
			[]string{p("pack", "pack-1.pack"), p("pack", "pack-1.idx"), pack}},
		{"loose", []string{p("ab", "cdef"), p("ab", "0123"), p("12", "3456")},
			[]string{p("ab", "cdef"), p("ab", "0123"), p("12", "3456"), p("ab"), objects, p("12")}},
		{"a new pack folder", []string{pack, p("pack", "pack-1.pack")},
			[]string{pack, p("pack", "pack-1.pack"), objects}},
	} {
		if got := odb.SyncNames(objects, c.files); !slices.Equal(got, c.want) {
			t.Errorf("%s: flushes %q, want %q", c.name, got, c.want)
		}
	}
}

// A pack written where the pack folder was deleted makes the folder again,
// and git reads what it holds.
func TestPackIntoNewFolder(t *testing.T) {
	r, db := open(t)
	if err := os.RemoveAll(filepath.Join(r.Dir, ".git", "objects", "pack")); err != nil {
		t.Fatal(err)
	}
	db.StartPackBatch()
	var ids []git.Hash
	for _, s := range []string{"one\n", "two\n", "three\n"} {
		h, err := db.Write(odb.TypeBlob, []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, h)
	}
	if err := errors.Join(db.Flush(), db.Sync(), db.EndPackBatch()); err != nil {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "pack-*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs written: %q, want one", packs)
	}
	for _, h := range ids {
		if got := r.Git("cat-file", "-t", h.String()); got != "blob" {
			t.Errorf("git cat-file -t %s = %q", h, got)
		}
	}
	r.Git("fsck", "--no-progress")
}
