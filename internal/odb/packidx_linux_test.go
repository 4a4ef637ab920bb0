//go:build !gitguard_portable

package odb

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

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
