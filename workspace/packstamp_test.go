package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// TestPackStampOwnPacks: the packs gitguard lists as its own leave the
// pack folder's stamp as it was, a pack git wrote changes it, and a fifo
// planted in the list's place neither blocks the stamp nor hides a pack.
func TestPackStampOwnPacks(t *testing.T) {
	r := gittest.New(t)
	r.Commit("init")
	common := filepath.Join(r.Dir, ".git")
	packDir := filepath.Join(common, "objects", "pack")
	if err := os.MkdirAll(packDir, 0o755); err != nil {
		t.Fatal(err)
	}
	touch := func(name string) {
		t.Helper()
		path := filepath.Join(packDir, name)
		if err := os.WriteFile(path, nil, 0o444); err != nil {
			t.Fatal(err)
		}
		// Not packs: gone before the repository's closing git fsck.
		t.Cleanup(func() { os.Remove(path) })
	}
	before := packStamp(packDir)
	touch("pack-0001.pack")
	touch("pack-0001.idx")
	gittest.WriteFile(t, filepath.Join(common, "gitguard", "packs"), "pack-0001 123\n")
	if got := packStamp(packDir); got != before {
		t.Errorf("a listed pack of gitguard's changed the stamp: %+v, was %+v", got, before)
	}
	touch("pack-0002.pack")
	theirs := packStamp(packDir)
	if theirs == before {
		t.Errorf("a pack git wrote left the stamp as it was")
	}
	list := filepath.Join(common, "gitguard", "packs")
	if err := os.Remove(list); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(list); err != nil {
		t.Skipf("no fifo here: %v", err)
	}
	if got := packStamp(packDir); got == theirs || got == before {
		t.Errorf("with a fifo for the list, the stamp %+v says the listed pack is still gitguard's", got)
	}
}
