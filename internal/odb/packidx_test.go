package odb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
)

// bigPack has git write a pack of n blobs (git fast-import writes one)
// and returns its index's path.
func bigPack(t *testing.T, r *gittest.Repo, n int) string {
	t.Helper()
	var in strings.Builder
	for i := range n {
		body := fmt.Sprintf("blob number %d\n", i)
		fmt.Fprintf(&in, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(body), body)
	}
	cmd := git.Cmd{Dir: r.Dir, Args: []string{"-c", "fastimport.unpackLimit=1", "fast-import", "--quiet"}, Stdin: strings.NewReader(in.String())}
	if _, err := cmd.Run(context.Background()); err != nil {
		t.Fatalf("git fast-import: %v", err)
	}
	return packFile(t, r.Dir)
}

// showIndex returns the objects git show-index lists in the index at path.
func showIndex(t *testing.T, r *gittest.Repo, path string) []git.Hash {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := git.Cmd{Dir: r.Dir, Args: []string{"show-index"}, Stdin: f}.Run(context.Background())
	if err != nil {
		t.Fatalf("git show-index: %v", err)
	}
	var ids []git.Hash
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			t.Fatalf("git show-index line %q", line)
		}
		h, err := git.ParseHash(fields[1])
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, h)
	}
	return ids
}

// An index is counted from its fan-out table alone, as git show-index
// lists it, whether it is read whole (small) or mapped (large); every
// object git lists is found in it, and a truncated or foreign file is not
// taken for an index.
func TestIndexCountAndLookupAgreeWithGitShowIndex(t *testing.T) {
	for _, n := range []int{3, 4000} {
		t.Run(fmt.Sprint(n, " objects"), func(t *testing.T) {
			r := gittest.New(t)
			path := bigPack(t, r, n)
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			want := showIndex(t, r, path)
			if len(want) != n {
				t.Fatalf("git show-index lists %d objects, want %d", len(want), n)
			}
			got, err := indexCount(path)
			if err != nil || got != len(want) {
				t.Fatalf("indexCount = %d, %v; git show-index lists %d", got, err, len(want))
			}
			f, err := mapIndex(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.unmap()
			// A checkpoint's few objects are read whole; git's big packs mapped.
			if large := n > 1000; f.mapped != large || large != (fi.Size() > readWholeIndex) {
				t.Errorf("index of %d objects, %d bytes: mapped = %v, want %v", n, fi.Size(), f.mapped, large)
			}
			if f.count != len(want) {
				t.Errorf("count %d, want %d", f.count, len(want))
			}
			for _, h := range want {
				if !f.has(h) {
					t.Fatalf("object %s that git lists not found", h)
				}
			}
			if f.has(git.Hash{0x42}) {
				t.Error("an object git does not list found")
			}

			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for name, bad := range map[string][]byte{
				"truncated":    data[:len(data)-41],
				"header only":  data[:idxHeader],
				"short":        data[:100],
				"not an index": append([]byte("PACK\x00\x00\x00\x02"), data[8:]...),
			} {
				p := filepath.Join(t.TempDir(), "bad.idx")
				if err := os.WriteFile(p, bad, 0o644); err != nil {
					t.Fatal(err)
				}
				if n, err := indexCount(p); err == nil {
					t.Errorf("%s: indexCount = %d, want an error", name, n)
				}
				if _, err := mapIndex(p); err == nil {
					t.Errorf("%s: mapIndex succeeded, want an error", name)
				}
			}
		})
	}
}

// A pack this process writes is added to the lookups without listing the
// pack folder again: a checkpoint writes one pack and then looks its
// objects up.
func TestWrittenPackAddedWithoutListingTheFolder(t *testing.T) {
	r := gittest.New(t)
	bigPack(t, r, 3)
	db, err := Open(filepath.Join(r.Dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.Has(git.Hash{0x42}) // lists the folder once, and again after the miss
	lists := db.packs.lists
	db.StartPackBatch()
	var ids []git.Hash
	for i := range 3 {
		h, err := db.Write(TypeBlob, []byte(fmt.Sprintf("written %d\n", i)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, h)
	}
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := db.EndPackBatch(); err != nil {
		t.Fatal(err)
	}
	for _, h := range ids {
		if pack, _ := db.packs.find(h); pack == "" {
			t.Fatalf("object %s not in the packs looked up", h)
		}
		if !db.Has(h) {
			t.Fatalf("object %s not found", h)
		}
		r.Git("cat-file", "-e", h.String())
	}
	if got := db.packs.lists - lists; got != 0 {
		t.Errorf("pack folder listed %d times for a pack this process wrote, want 0", got)
	}
}

// An index whose pack is gone (git's leftover of a crash, say) lists no
// objects: a lookup that trusted it would fail on the pack, or report an
// object git does not have.
func TestIndexWithoutItsPackIgnored(t *testing.T) {
	r := gittest.New(t)
	idx := bigPack(t, r, 3)
	ids := showIndex(t, r, idx)
	// The same index under another pack's name, with no pack beside it.
	stray := filepath.Join(filepath.Dir(idx), "pack-"+strings.Repeat("0", 40)+".idx")
	data, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stray, data, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(strings.TrimSuffix(idx, ".idx") + ".pack"); err != nil {
		t.Fatal(err)
	}
	db, err := Open(filepath.Join(r.Dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, h := range ids {
		if pack, known := db.packs.find(h); pack != "" || !known {
			t.Errorf("object %s found in %q (known %v) with every pack gone", h, pack, known)
		}
		if db.Has(h) {
			t.Errorf("object %s reported present with every pack gone", h)
		}
	}
}
