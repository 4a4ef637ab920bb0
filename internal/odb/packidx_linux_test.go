//go:build !gitguard_portable

package odb

import (
	"bytes"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
)

// mappedNow reports whether the process maps the file at path.
func mappedNow(t *testing.T, path string) bool {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(maps), path)
}

// Close leaves the packs mapped for the garbage collector to release: a
// command closing its repository just before it exits unmaps nothing.
// The mappings do not leak: they go once nothing references them.
func TestCloseLeavesMappingsToTheCollector(t *testing.T) {
	r := gittest.New(t)
	idx := bigPack(t, r, 4000) // an index big enough to be mapped
	ids := showIndex(t, r, idx)
	pack := strings.TrimSuffix(idx, ".idx") + ".pack"
	func() {
		db, err := Open(filepath.Join(r.Dir, ".git"))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.Read(ids[0]); err != nil { // maps the pack too
			t.Fatal(err)
		}
		if !mappedNow(t, idx) || !mappedNow(t, pack) {
			t.Fatal("the index and the pack are not mapped after a read")
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if !mappedNow(t, idx) || !mappedNow(t, pack) {
			t.Error("Close unmapped the pack: a process about to exit pays a munmap for each")
		}
	}()
	for deadline := time.Now().Add(5 * time.Second); mappedNow(t, idx) || mappedNow(t, pack); {
		if time.Now().After(deadline) {
			t.Fatal("the pack is still mapped after the database is gone and collected")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// residentKiB is the resident memory of the process's mappings of the file
// at path, from /proc/self/smaps.
func residentKiB(t *testing.T, path string) int {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	total, in := 0, false
	for _, line := range strings.Split(string(smaps), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			in = f[len(f)-1] == path
			continue
		}
		if in && f[0] == "Rss:" && len(f) > 1 {
			n, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatal(err)
			}
			total += n
		}
	}
	return total
}

// A process that reads objects for hours (the watch daemon) does not keep
// every page of the packs it read as its own memory: when an operation
// ends, the pages of its mappings are let go, each time, and reads go on
// from the page cache; reads outside any operation let them go once
// operations pause.
func TestMemoEndReleasesMappedPages(t *testing.T) {
	r := gittest.New(t)
	idx := bigPack(t, r, 4000)
	ids := showIndex(t, r, idx)
	pack := strings.TrimSuffix(idx, ".idx") + ".pack"
	db, err := Open(filepath.Join(r.Dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	end := db.Memo()
	for _, h := range ids {
		if _, _, err := db.Read(h); err != nil {
			t.Fatal(err)
		}
	}
	if residentKiB(t, pack) == 0 || residentKiB(t, idx) == 0 {
		t.Fatal("reading every object left no page of the pack or its index resident")
	}
	end()
	if kib := residentKiB(t, pack) + residentKiB(t, idx); kib != 0 {
		t.Errorf("%d KiB of the pack and its index still resident after the operation ended", kib)
	}
	if !mappedNow(t, pack) {
		t.Error("the pack was unmapped; only its pages were to go")
	}
	// Every operation's end lets them go, not only the first.
	end = db.Memo()
	if _, _, err := db.Read(ids[len(ids)/3]); err != nil {
		t.Fatal(err)
	}
	if residentKiB(t, pack) == 0 {
		t.Fatal("a read left no page of the pack resident")
	}
	end()
	if kib := residentKiB(t, pack); kib != 0 {
		t.Errorf("%d KiB of the pack still resident after a second operation ended", kib)
	}
	// A read outside any operation: once operations pause for
	// releaseIdle, the pages go.
	if _, _, err := db.Read(ids[len(ids)/2]); err != nil {
		t.Fatal(err)
	}
	db.packs.releaseWhenIdle(db.memo.busy)
	for deadline := time.Now().Add(releaseIdle + 5*time.Second); residentKiB(t, pack) != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d KiB of the pack still resident once operations paused", residentKiB(t, pack))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Merging packs copies each one from start to end and lets go of the pages
// read as it goes: a merge of the run's large packs does not hold them all
// in the process's resident set at once.
func TestPackCopyReleasesWhatItRead(t *testing.T) {
	r := gittest.New(t)
	db, err := Open(filepath.Join(r.Dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// 8 MiB of content that does not compress.
	rng := rand.New(rand.NewPCG(1, 2))
	blobs := map[git.Hash][]byte{}
	for range 2048 {
		data := make([]byte, 4096)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		blobs[HashObject(TypeBlob, data)] = data
	}
	ids := slices.SortedFunc(maps.Keys(blobs), func(a, b git.Hash) int { return bytes.Compare(a[:], b[:]) })
	base, err := db.writePackFile(ids, func(h git.Hash) (Type, []byte, error) { return TypeBlob, blobs[h], nil }, false)
	if err != nil {
		t.Fatal(err)
	}
	e, err := openOwnEntries(base)
	if err != nil {
		t.Fatal(err)
	}
	defer e.idx.unmap()
	most := 0
	for i, h := range ids {
		if _, found, err := e.entry(h); !found || err != nil {
			t.Fatalf("entry %s: found %v, %v", h, found, err)
		}
		if i%256 == 255 {
			most = max(most, residentKiB(t, base+".pack"))
		}
	}
	if most == 0 {
		t.Fatal("no page of the pack resident while it was read")
	}
	if limit := 2 * copyReleaseChunk >> 10; most > limit {
		t.Errorf("%d KiB of the 8 MiB pack resident while it was copied, want at most %d", most, limit)
	}
}
