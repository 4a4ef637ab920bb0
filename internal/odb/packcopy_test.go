package odb_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/odb"
)

// checkpointPacks writes n packs the way checkpoints do (one pack batch
// each: blobs and a tree over them, an object shared by all), and returns
// every object written with its content.
func checkpointPacks(t *testing.T, db *odb.DB, n int) map[git.Hash]string {
	t.Helper()
	want := map[git.Hash]string{}
	for i := range n {
		inPackBatch(t, db, func() {
			var entries []odb.TreeEntry
			for j, content := range []string{"shared by every pack\n", fmt.Sprintf("pack %d\n%s", i, strings.Repeat("y", i*101)), fmt.Sprintf("pack %d again\n", i)} {
				h := writeBlob(t, db, want, content)
				entries = append(entries, odb.TreeEntry{Name: fmt.Sprintf("f%d", j), Mode: odb.ModeFile, Hash: h})
			}
			if _, err := db.WriteTree(entries); err != nil {
				t.Fatal(err)
			}
		})
	}
	return want
}

// inPackBatch runs write inside one pack batch, then stores the batch as
// a pack.
func inPackBatch(t *testing.T, db *odb.DB, write func()) {
	t.Helper()
	db.StartPackBatch()
	write()
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := db.EndPackBatch(); err != nil {
		t.Fatal(err)
	}
}

// writeBlob writes content as a blob and adds it to want.
func writeBlob(t *testing.T, db *odb.DB, want map[git.Hash]string, content string) git.Hash {
	t.Helper()
	h, err := db.Write(odb.TypeBlob, []byte(content))
	if err != nil {
		t.Fatal(err)
	}
	want[h] = content
	return h
}

func checkPacks(t *testing.T, r *gittest.Repo, want map[git.Hash]string) []string {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(r.Dir, ".git/objects/pack/pack-*.idx"))
	for _, p := range packs {
		if out := r.Git("verify-pack", "-v", p); !strings.Contains(out, ": ok") && !strings.Contains(out, "non delta") {
			t.Errorf("git verify-pack -v %s:\n%s", p, out)
		}
	}
	for h, content := range want {
		if got := r.Git("cat-file", "blob", h.String()); got != strings.TrimSuffix(content, "\n") && got != content {
			t.Errorf("git cat-file blob %s = %q, want %q", h.Short(), got, content)
		}
	}
	if out := r.Git("fsck", "--full", "--strict", "--unreachable"); strings.Contains(out, "error") || strings.Contains(out, "missing") {
		t.Errorf("git fsck: %s", out)
	}
	return packs
}

// Merging gitguard's packs copies their entries as stored; git verifies
// the merged pack and reads every object from it.
func TestConsolidateCopiesEntries(t *testing.T) {
	r, db := open(t)
	want := checkpointPacks(t, db, 9)
	if packs := checkPacks(t, r, want); len(packs) != 9 {
		t.Fatalf("%d packs before merging, want 9", len(packs))
	}
	if err := db.Consolidate(); err != nil {
		t.Fatal(err)
	}
	if packs := checkPacks(t, r, want); len(packs) >= 9 {
		t.Fatalf("%d packs after merging, want fewer than 9", len(packs))
	}
}

// An entry whose CRC in the index does not match is not copied: the merge
// writes the objects from their content (read back and hashed) instead.
func TestConsolidateRewritesWhenCRCDiffers(t *testing.T) {
	r, db := open(t)
	want := checkpointPacks(t, db, 9)
	idxs, _ := filepath.Glob(filepath.Join(r.Dir, ".git/objects/pack/pack-*.idx"))
	for _, idx := range idxs {
		data, err := os.ReadFile(idx)
		if err != nil {
			t.Fatal(err)
		}
		count := int(binary.BigEndian.Uint32(data[8+255*4:]))
		crc := 8 + 256*4 + count*20 // the first object's CRC
		data[crc] ^= 0xff
		if err := os.Chmod(idx, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(idx, data, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Consolidate(); err != nil {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(r.Dir, ".git/objects/pack/pack-*.idx"))
	if len(packs) >= 9 {
		t.Fatalf("%d packs after merging, want fewer than 9", len(packs))
	}
	// The merged pack has true CRCs (verify-pack checks them); the packs
	// left unmerged keep the damaged ones, so only the merged are checked.
	merged := 0
	for _, p := range packs {
		if !slices.Contains(idxs, p) {
			merged++
			if out := r.Git("verify-pack", "-v", p); !strings.Contains(out, "non delta") {
				t.Errorf("git verify-pack -v %s:\n%s", p, out)
			}
		}
	}
	if merged != 1 {
		t.Fatalf("%d new packs, want the one merged", merged)
	}
	for h, content := range want {
		if got := r.Git("cat-file", "blob", h.String()); got != strings.TrimSuffix(content, "\n") && got != content {
			t.Errorf("git cat-file blob %s = %q, want %q", h.Short(), got, content)
		}
	}
}

// While git gc or maintenance runs, gitguard deletes none of its packs: a
// git repack lists the packs, then opens each, and fails on one deleted in
// between. Merging waits, prune says to try again, and both go ahead once
// the mark is gone.
func TestOwnPacksKeptWhileGitMaintenanceRuns(t *testing.T) {
	r, db := open(t)
	want := checkpointPacks(t, db, 9)
	pid := filepath.Join(r.Dir, ".git", "gc.pid")
	if err := os.WriteFile(pid, []byte("12345 host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := db.Consolidate(); err != nil {
		t.Fatal(err)
	}
	if packs := checkPacks(t, r, want); len(packs) != 9 {
		t.Fatalf("%d packs while git gc runs, want the 9 untouched", len(packs))
	}
	if _, err := db.DropUnreachable(func(git.Hash) bool { return false }, time.Now().Add(time.Hour)); err == nil || !strings.Contains(err.Error(), "gc.pid") {
		t.Fatalf("prune while git gc runs: %v, want an error naming gc.pid", err)
	}
	if packs := checkPacks(t, r, want); len(packs) != 9 {
		t.Fatalf("%d packs after a refused prune, want the 9 untouched", len(packs))
	}
	if err := os.Remove(pid); err != nil {
		t.Fatal(err)
	}
	if err := db.Consolidate(); err != nil {
		t.Fatal(err)
	}
	if packs := checkPacks(t, r, want); len(packs) >= 9 {
		t.Fatalf("%d packs once git gc is done, want fewer than 9", len(packs))
	}
}
