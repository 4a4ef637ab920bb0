package odb

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
)

// An index of a pack past 2 GiB (a merge of large packs) keeps each offset
// whole: those from 2 GiB on go in the 64-bit table, as git reads it
// (git show-index) and as this package's reader does.
func TestWriteIndexLargeOffsets(t *testing.T) {
	var ids []git.Hash
	for i := range 5 {
		ids = append(ids, git.Hash(sha1.Sum(fmt.Appendf(nil, "object %d", i))))
	}
	slices.SortFunc(ids, func(a, b git.Hash) int { return bytes.Compare(a[:], b[:]) })
	offsets := []uint64{12, 1<<31 - 1, 1 << 31, 5 << 30, 1<<40 + 7}
	crcs := []uint32{1, 2, 3, 4, 5}
	var buf bytes.Buffer
	if err := writeIndex(&buf, ids, crcs, offsets, git.Hash{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pack-x.idx")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := git.Cmd{Args: []string{"show-index"}, Stdin: bytes.NewReader(buf.Bytes())}
	out, err := cmd.Run(context.Background())
	if err != nil {
		t.Fatalf("git show-index: %v", err)
	}
	got := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.Fields(sc.Text()) // offset id (crc)
		if len(f) >= 2 {
			got[f[1]] = f[0]
		}
	}
	for i, h := range ids {
		if want := fmt.Sprint(offsets[i]); got[h.String()] != want {
			t.Errorf("git show-index: %s at %s, want %s\n%s", h, got[h.String()], want, out)
		}
	}

	f, err := mapIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range ids {
		at, ok := f.find(h)
		if !ok || f.offset(at) != int64(offsets[i]) {
			t.Errorf("reader: %s at %d (found %v), want %d", h, f.offset(at), ok, offsets[i])
		}
	}
}
