package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// An index over mapIndexMin (read through a mapping where the platform has
// one) parses to what git ls-files lists, and a damaged one is refused.
func TestReadLargeIndex(t *testing.T) {
	r := gittest.New(t)
	const n = 6500 // long names: about 1.1 MB of index
	long := strings.Repeat("a-rather-long-folder-name-", 3)
	for i := 0; i < n; i++ {
		gittest.WriteFile(t, filepath.Join(r.Dir, fmt.Sprintf("%s%02d/%s%02d/file-%05d.txt", long, i%30, long, i%7, i)), "same\n")
	}
	r.Git("add", "-A")
	path := filepath.Join(r.Dir, ".git", "index")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < mapIndexMin {
		t.Fatalf("index of %d bytes, want at least %d", fi.Size(), mapIndexMin)
	}
	idx, err := readIndexFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := stageLines(idx)
	want := strings.Split(r.Git("ls-files", "-s"), "\n")
	if len(got) != n || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%d entries parsed, git ls-files lists %d; first %q, git's %q", len(got), len(want), got[:1], want[:1])
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readIndexFile(path); !errors.Is(err, ErrIndexFormat) {
		t.Errorf("damaged index: %v, want ErrIndexFormat", err)
	}
	data[len(data)/2] ^= 0xff // sound again for the fsck at the end
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
