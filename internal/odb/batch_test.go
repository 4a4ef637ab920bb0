package odb_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// A batch of many objects becomes one pack that git verifies and reads;
// a small batch becomes loose objects. Both are readable before the batch
// ends and durable after Sync.
func TestBatchStoresPackOrLoose(t *testing.T) {
	for _, n := range []int{3, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r, db := open(t)
			db.StartBatch()
			var ids []git.Hash
			want := map[git.Hash]string{}
			for i := range n {
				content := fmt.Sprintf("object %d\n%s", i, strings.Repeat("z", i*37))
				h, err := db.Write(odb.TypeBlob, []byte(content))
				if err != nil {
					t.Fatal(err)
				}
				ids, want[h] = append(ids, h), content
			}
			// A tree over the blobs, so that fsck follows them and the pack
			// holds more than one type.
			var entries []odb.TreeEntry
			for i, h := range ids {
				entries = append(entries, odb.TreeEntry{Name: fmt.Sprintf("f%03d", i), Mode: odb.ModeFile, Hash: h})
			}
			tree, err := db.WriteTree(entries)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.ReadTree(tree); err != nil {
				t.Fatalf("tree not readable inside the batch: %v", err)
			}
			if !db.Has(ids[0]) {
				t.Fatal("blob not visible inside the batch")
			}
			if packs, _ := filepath.Glob(filepath.Join(r.Dir, ".git/objects/pack/*")); len(packs) != 0 || looseCount(t, r.Dir) != 0 {
				t.Fatalf("objects stored before the batch ended: packs %v, %d loose", packs, looseCount(t, r.Dir))
			}
			if err := db.EndBatch(); err != nil {
				t.Fatal(err)
			}
			if err := db.Sync(); err != nil {
				t.Fatal(err)
			}
			packs, _ := filepath.Glob(filepath.Join(r.Dir, ".git/objects/pack/pack-*.idx"))
			switch {
			case n >= 32 && (len(packs) != 1 || looseCount(t, r.Dir) != 0):
				t.Fatalf("%d objects: %d packs and %d loose objects, want one pack", n+1, len(packs), looseCount(t, r.Dir))
			case n < 32 && (len(packs) != 0 || looseCount(t, r.Dir) != n+1):
				t.Fatalf("%d objects: %d packs and %d loose objects, want all loose", n+1, len(packs), looseCount(t, r.Dir))
			}
			for _, p := range packs {
				out := r.Git("verify-pack", "-v", p)
				if !strings.Contains(out, fmt.Sprintf("non delta: %d objects", n+1)) {
					t.Errorf("git verify-pack -v %s:\n%s", p, out)
				}
			}
			for h, content := range want {
				if got := r.Git("cat-file", "blob", h.String()); got != strings.TrimSuffix(content, "\n") && got != content {
					t.Errorf("git cat-file blob %s = %q, want %q", h.Short(), got, content)
				}
			}
			r.Git("update-ref", "refs/test/batch", commitOver(t, db, tree).String())
			if out := r.Git("fsck", "--full", "--strict"); strings.Contains(out, "error") || strings.Contains(out, "missing") {
				t.Errorf("git fsck: %s", out)
			}
		})
	}
}

func commitOver(t *testing.T, db *odb.DB, tree git.Hash) git.Hash {
	t.Helper()
	who := odb.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0).UTC()}
	h, err := db.Write(odb.TypeCommit, odb.EncodeCommit(&odb.Commit{Tree: tree, Author: who, Committer: who, Message: "batch\n"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	return h
}

func looseCount(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(dir, ".git/objects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && len(filepath.Base(filepath.Dir(p))) == 2 {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A batch over its memory bound is stored as it goes, not held whole.
func TestBatchStoresAsItGoes(t *testing.T) {
	r, db := open(t)
	db.StartBatch()
	var ids []string
	for i := range 40 {
		h, err := db.Write(odb.TypeBlob, []byte(fmt.Sprintf("%02d%s", i, strings.Repeat("y", 1<<20-2)))) // 1 MiB each
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, h.String())
	}
	packs, _ := filepath.Glob(filepath.Join(r.Dir, ".git/objects/pack/pack-*.idx"))
	if len(packs) != 1 {
		t.Fatalf("after 40 MiB in one batch: %d packs, want the first 32 MiB stored as one", len(packs))
	}
	if err := db.EndBatch(); err != nil {
		t.Fatal(err)
	}
	if n := looseCount(t, r.Dir); n != 8 {
		t.Errorf("%d loose objects after the batch, want the last 8", n)
	}
	for _, id := range ids {
		if typ := r.Git("cat-file", "-t", id); typ != "blob" {
			t.Errorf("git cat-file -t %s = %q", id, typ)
		}
	}
}

// FlushBehind stores a large batch as a pack while the caller goes on
// reading, leaves a small one collected, and what is collected meanwhile
// is stored by it or by the next Flush.
func TestFlushBehind(t *testing.T) {
	r, db := open(t)
	db.StartPackBatch()
	write := func(n int, tag string) []git.Hash {
		t.Helper()
		var ids []git.Hash
		for i := range n {
			h, err := db.Write(odb.TypeBlob, fmt.Appendf(nil, "%s %d\n", tag, i))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, h)
		}
		return ids
	}
	packs := func() int {
		t.Helper()
		found, _ := filepath.Glob(filepath.Join(r.Dir, ".git/objects/pack/pack-*.idx"))
		return len(found)
	}
	few := write(3, "few")
	if err := db.FlushBehind()(); err != nil || packs() != 0 {
		t.Fatalf("a small batch was stored (%v): %d packs", err, packs())
	}
	many := append(few, write(200, "many")...)
	wait := db.FlushBehind()
	for _, h := range many { // read while it stores
		if _, _, err := db.Read(h); err != nil {
			t.Fatalf("read %s while the batch is stored: %v", h, err)
		}
	}
	late := write(2, "late")
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if packs() != 1 {
		t.Fatalf("%d packs after FlushBehind, want 1", packs())
	}
	// The late objects went into that pack if it started after them, else
	// into the next Flush's pack; when it started between the two, the one
	// left is stored loose (a pack batch packs two objects or more).
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	switch n, loose := packs(), looseCount(t, r.Dir); {
	case n == 1 && (loose == 0 || loose == 1), n == 2 && loose == 0:
	default:
		t.Fatalf("after a Flush: %d packs, %d loose objects; want the late objects in the first pack, a second one, or (one of them) loose", n, loose)
	}
	if err := db.EndPackBatch(); err != nil {
		t.Fatal(err)
	}
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	for _, h := range append(many, late...) {
		if got := r.Git("cat-file", "-t", h.String()); got != "blob" {
			t.Errorf("git cat-file -t %s = %q", h, got)
		}
	}
}

// A small tree goes into a pack stored, a larger one deflated; git reads
// both, and the pack verifies.
func TestPackStoresSmallTrees(t *testing.T) {
	r, db := open(t)
	blob, err := db.Write(odb.TypeBlob, []byte("content\n"))
	if err != nil {
		t.Fatal(err)
	}
	tree := func(n int) (git.Hash, int) {
		var entries []odb.TreeEntry
		for i := range n {
			entries = append(entries, odb.TreeEntry{Name: fmt.Sprintf("file-with-a-long-name-%03d.txt", i), Mode: odb.ModeFile, Hash: blob})
		}
		h, err := db.WriteTree(entries)
		if err != nil {
			t.Fatal(err)
		}
		return h, len(odb.EncodeTree(entries))
	}
	db.StartPackBatch()
	small, smallSize := tree(3)
	large, largeSize := tree(60)
	if err := errors.Join(db.Flush(), db.Sync(), db.EndPackBatch()); err != nil {
		t.Fatal(err)
	}
	idx, _ := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "pack-*.idx"))
	if len(idx) != 1 {
		t.Fatalf("packs: %q, want one", idx)
	}
	pack, err := os.ReadFile(strings.TrimSuffix(idx[0], ".idx") + ".pack")
	if err != nil {
		t.Fatal(err)
	}
	// stored reports whether the tree's zlib stream, at the offset git
	// verify-pack gives, opens with a stored block (type 00).
	offsets := map[string]int{}
	for _, line := range strings.Split(r.Git("verify-pack", "-v", idx[0]), "\n") {
		if f := strings.Fields(line); len(f) >= 5 && f[1] == "tree" {
			offsets[f[0]], _ = strconv.Atoi(f[4])
		}
	}
	stored := func(h git.Hash) bool {
		t.Helper()
		off, ok := offsets[h.String()]
		if !ok {
			t.Fatalf("tree %s is not in the pack", h)
		}
		for pack[off]&0x80 != 0 { // the entry's type and size
			off++
		}
		off++
		if pack[off] != 0x78 {
			t.Fatalf("tree %s: no zlib header at %d", h, off)
		}
		return pack[off+2]&0x06 == 0
	}
	if !stored(small) {
		t.Errorf("a %d-byte tree was deflated, not stored", smallSize)
	}
	if stored(large) {
		t.Errorf("a %d-byte tree was stored, not deflated", largeSize)
	}
	for _, h := range []git.Hash{small, large} {
		r.Git("cat-file", "-p", h.String())
	}
	r.Git("fsck", "--no-progress", "--strict")
}
