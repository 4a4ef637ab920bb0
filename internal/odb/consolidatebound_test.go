package odb_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/odb"
)

// morePacks writes n packs of two new blobs each (a pack batch of one
// object writes it loose), and returns what they hold.
func morePacks(t *testing.T, db *odb.DB, n int) map[git.Hash]string {
	t.Helper()
	want := map[git.Hash]string{}
	for i := range n {
		inPackBatch(t, db, func() {
			for j := range 2 {
				writeBlob(t, db, want, fmt.Sprintf("later pack %d of %d, blob %d\n", i, n, j))
			}
		})
	}
	return want
}

// ConsolidateIfMany leaves as many packs as Consolidate would merge alone,
// and merges them once ConsolidateBound are listed; git reads every object
// from the packs left either way.
func TestConsolidateIfManyWaitsForTheBound(t *testing.T) {
	r, db := open(t)
	want := checkpointPacks(t, db, 9)
	if err := db.ConsolidateIfMany(); err != nil {
		t.Fatal(err)
	}
	if packs := checkPacks(t, r, want); len(packs) != 9 {
		t.Fatalf("%d packs after ConsolidateIfMany below the bound, want the 9 untouched", len(packs))
	}
	maps.Copy(want, morePacks(t, db, odb.ConsolidateBound-1-9))
	if err := db.ConsolidateIfMany(); err != nil {
		t.Fatal(err)
	}
	if packs := checkPacks(t, r, want); len(packs) != odb.ConsolidateBound-1 {
		t.Fatalf("%d packs after ConsolidateIfMany one pack short of the bound, want the %d untouched", len(packs), odb.ConsolidateBound-1)
	}
	maps.Copy(want, morePacks(t, db, 1))
	if err := db.ConsolidateIfMany(); err != nil {
		t.Fatal(err)
	}
	if packs := checkPacks(t, r, want); len(packs) >= 8 {
		t.Fatalf("%d packs after ConsolidateIfMany at the bound, want them merged to fewer than 8", len(packs))
	}
}

// Below the bound, the routine Consolidate still merges what
// ConsolidateIfMany left.
func TestConsolidateMergesWhatConsolidateIfManyLeft(t *testing.T) {
	r, db := open(t)
	want := checkpointPacks(t, db, 12)
	if err := db.ConsolidateIfMany(); err != nil {
		t.Fatal(err)
	}
	if packs := checkPacks(t, r, want); len(packs) != 12 {
		t.Fatalf("%d packs after ConsolidateIfMany, want the 12 untouched", len(packs))
	}
	if err := db.Consolidate(); err != nil {
		t.Fatal(err)
	}
	if packs := checkPacks(t, r, want); len(packs) >= 8 {
		t.Fatalf("%d packs after Consolidate, want fewer than 8", len(packs))
	}
}

// packOf writes one pack of n blobs of size random bytes each, and returns
// what it holds.
func packOf(t *testing.T, db *odb.DB, rng *rand.Rand, n, size int) map[git.Hash]string {
	t.Helper()
	want := map[git.Hash]string{}
	inPackBatch(t, db, func() {
		for range n {
			content := make([]byte, size)
			for i := range content {
				content[i] = byte(rng.IntN(256))
			}
			writeBlob(t, db, want, string(content))
		}
	})
	return want
}

// holdsAll checks with git that the repository holds every object of
// want (git cat-file --batch-check: type and size), that git verifies every
// pack, and returns the pack indexes.
func holdsAll(t *testing.T, r *gittest.Repo, want map[git.Hash]string) []string {
	t.Helper()
	var in strings.Builder
	for h := range want {
		in.WriteString(h.String() + "\n")
	}
	out, err := git.Cmd{Dir: r.Dir, Args: []string{"cat-file", "--batch-check"}, Stdin: strings.NewReader(in.String())}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		h, err := git.ParseHash(f[0])
		if err != nil || len(f) != 3 || f[1] != "blob" || f[2] != fmt.Sprint(len(want[h])) {
			t.Fatalf("git cat-file --batch-check: %q", line)
		}
	}
	packs, _ := filepath.Glob(filepath.Join(r.Dir, ".git/objects/pack/pack-*.idx"))
	for _, p := range packs {
		r.Git("verify-pack", p)
	}
	return packs
}

// ConsolidateIfMany copies no more than AwaitedMergeBytes: a pack the
// geometric rule would merge but that takes the merge past that is left
// for Consolidate, which merges it.
func TestConsolidateIfManyLeavesBigMerges(t *testing.T) {
	r, db := open(t)
	rng := rand.New(rand.NewPCG(1, 2))
	want := packOf(t, db, rng, 2000, 700) // 1.4 MB: past the bound alone
	packs := holdsAll(t, r, want)
	if len(packs) != 1 {
		t.Fatalf("%d packs, want 1", len(packs))
	}
	big := packs[0]
	if fi, err := os.Stat(strings.TrimSuffix(big, ".idx") + ".pack"); err != nil || fi.Size() <= odb.AwaitedMergeBytes {
		t.Fatalf("the big pack: %v, %v; want more than %d bytes", fi, err, odb.AwaitedMergeBytes)
	}
	// Small packs whose objects the geometric rule weighs against the big
	// one's: 31 × 40 objects, and 2000 < 2 × 1240.
	for range odb.ConsolidateBound - 1 {
		maps.Copy(want, packOf(t, db, rng, 40, 20))
	}
	if err := db.ConsolidateIfMany(); err != nil {
		t.Fatal(err)
	}
	packs = holdsAll(t, r, want)
	if !slices.Contains(packs, big) {
		t.Fatal("ConsolidateIfMany merged the big pack")
	}
	if len(packs) != 2 {
		t.Fatalf("%d packs after ConsolidateIfMany, want the big one and the small ones merged", len(packs))
	}
	// 16 × 40 more: the merged 1240 weigh less than twice those, and the
	// big pack's 2000 less than twice all of them.
	for range 16 {
		maps.Copy(want, packOf(t, db, rng, 40, 20))
	}
	if err := db.Consolidate(); err != nil {
		t.Fatal(err)
	}
	if packs := holdsAll(t, r, want); len(packs) != 1 || slices.Contains(packs, big) {
		t.Fatalf("%d packs after Consolidate, the big one among them %v; want all merged into one", len(packs), slices.Contains(packs, big))
	}
	if out := r.Git("fsck", "--full", "--strict"); strings.Contains(out, "error") || strings.Contains(out, "missing") {
		t.Errorf("git fsck: %s", out)
	}
}
