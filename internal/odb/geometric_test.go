package odb

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func packsOf(objects ...int) []ownPack {
	packs := make([]ownPack, len(objects))
	for i, n := range objects {
		packs[i] = ownPack{objects: n}
	}
	return packs
}

func TestGeometricSplit(t *testing.T) {
	for _, tc := range []struct {
		objects []int
		want    int
	}{
		{nil, 0},
		{[]int{5}, 0},
		{[]int{1, 2, 4, 8}, 0},     // a progression already
		{[]int{5, 5}, 2},           // two of a size
		{[]int{3, 4, 100}, 2},      // the big one stays
		{[]int{3, 4, 10}, 3},       // 10 < 2×7: rolled up
		{[]int{1, 2, 4, 5, 40}, 4}, // 4 and 5 break it; 40 ≥ 2×12
		// Two small packs below many of a size: every one of them merges,
		// not only the small two.
		{[]int{3, 3, 14, 14, 14, 15, 15, 81}, 8},
		{[]int{3, 3, 14, 14, 14, 15, 15, 200}, 7},
	} {
		if got := geometricSplit(packsOf(tc.objects...)); got != tc.want {
			t.Errorf("geometricSplit(%v) = %d, want %d", tc.objects, got, tc.want)
		}
	}
}

// TestGeometricSplitLeavesProgression checks the promise on random packs:
// after merging what it says, the packs form a geometric progression, and
// it merges nothing when they already do.
func TestGeometricSplitLeavesProgression(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		objects := make([]int, r.IntN(12))
		for i := range objects {
			objects[i] = 1 + r.IntN(1<<r.IntN(12))
		}
		slices.Sort(objects)
		split := geometricSplit(packsOf(objects...))
		if split == 1 {
			t.Fatalf("%v: merges a single pack", objects)
		}
		after := objects[split:]
		if split > 0 {
			sum := 0
			for _, n := range objects[:split] {
				sum += n
			}
			after = append([]int{sum}, after...)
			slices.Sort(after)
		}
		for i := 1; i < len(after); i++ {
			if after[i] < 2*after[i-1] {
				t.Fatalf("%v: split %d leaves %v, not a progression", objects, split, after)
			}
		}
		if progression(objects) && split != 0 {
			t.Fatalf("%v: a progression, but split %d", objects, split)
		}
	}
}

func progression(objects []int) bool {
	for i := 1; i < len(objects); i++ {
		if objects[i] < 2*objects[i-1] {
			return false
		}
	}
	return true
}
