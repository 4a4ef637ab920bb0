package odb_test

import (
	"fmt"
	"maps"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// morePacks writes n packs of two new blobs each (a pack batch of one
// object writes it loose), and returns what they hold.
func morePacks(t *testing.T, db *odb.DB, n int) map[git.Hash]string {
	t.Helper()
	want := map[git.Hash]string{}
	for i := range n {
		db.StartPackBatch()
		for j := range 2 {
			content := fmt.Sprintf("later pack %d of %d, blob %d\n", i, n, j)
			h, err := db.Write(odb.TypeBlob, []byte(content))
			if err != nil {
				t.Fatal(err)
			}
			want[h] = content
		}
		if err := db.Sync(); err != nil {
			t.Fatal(err)
		}
		if err := db.EndPackBatch(); err != nil {
			t.Fatal(err)
		}
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
