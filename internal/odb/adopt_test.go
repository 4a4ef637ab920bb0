package odb_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// Objects git hash-object -w wrote loose during an open batch go out in
// the batch's pack: once the batch ends they are found there even with
// their loose copies gone. Without a batch they stay loose (and are synced
// with the next Sync).
func TestAdoptLooseIntoBatch(t *testing.T) {
	r, db := open(t)
	var paths []string
	for i := 0; i < 3; i++ {
		p := filepath.Join(r.Dir, "f"+string(rune('a'+i)))
		if err := os.WriteFile(p, []byte(strings.Repeat("line\r\n", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	hashOut := func(args ...string) []git.Hash {
		var ids []git.Hash
		for _, line := range strings.Fields(r.Git(append([]string{"hash-object", "-w"}, args...)...)) {
			h, err := git.ParseHash(line)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, h)
		}
		return ids
	}

	db.StartBatch()
	ids := hashOut(paths[:2]...)
	db.AdoptLoose(ids)
	for i := 0; i < 40; i++ { // enough for the batch to be stored as a pack
		if _, err := db.Write(odb.TypeBlob, []byte(strings.Repeat("filler ", i+1))); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.EndBatch(); err != nil {
		t.Fatal(err)
	}
	for _, h := range ids {
		if err := os.Remove(loosePath(r.Dir, h)); err != nil {
			t.Fatal(err)
		}
		if out := r.Git("cat-file", "-t", h.String()); out != "blob" {
			t.Errorf("adopted %s without its loose copy: cat-file -t = %q", h, out)
		}
	}

	// No batch open: left loose, nothing packed.
	loose := hashOut(paths[2])
	db.AdoptLoose(loose)
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(loosePath(r.Dir, loose[0])); err != nil {
		t.Fatal(err)
	}
	if db.Rescan(); db.Has(loose[0]) {
		t.Errorf("%s adopted without a batch was packed", loose[0])
	}
}
