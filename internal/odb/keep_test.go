package odb

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A .keep's own time is its keep file's, as old as the process that made
// it: a .keep is a dead process's leftover only when its pack is old too.
func TestKeptByBatchGoesByThePacksTime(t *testing.T) {
	base := filepath.Join(t.TempDir(), "pack-1")
	for _, ext := range []string{".pack", ".keep"} {
		if err := os.WriteFile(base+ext, []byte(keepNote), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleKeep)
	if err := os.Chtimes(base+".keep", old, old); err != nil {
		t.Fatal(err)
	}
	if !keptByBatch(base) {
		t.Error("an old .keep of a new pack is taken for a leftover")
	}
	if _, err := os.Stat(base + ".keep"); err != nil {
		t.Fatalf("the .keep of a new pack was removed: %v", err)
	}
	if err := os.Chtimes(base+".pack", old, old); err != nil {
		t.Fatal(err)
	}
	if keptByBatch(base) {
		t.Error("an old .keep of an old pack still guards it")
	}
	if _, err := os.Stat(base + ".keep"); !os.IsNotExist(err) {
		t.Errorf("a leftover .keep stays: %v", err)
	}
}
