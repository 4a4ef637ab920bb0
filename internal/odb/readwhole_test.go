package odb

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// readWhole returns a file's bytes up to its limit, only the size past it,
// and errors that say what os.ReadFile's would.
func TestReadWhole(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 4096, 70000} {
		want := bytes.Repeat([]byte{'x', 0, '\n'}, size/3+1)[:size]
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		data, n, err := readWhole(path, 65536)
		switch {
		case err != nil:
			t.Fatalf("%d bytes: %v", size, err)
		case n != int64(size):
			t.Errorf("%d bytes: size %d", size, n)
		case size > 65536 && data != nil:
			t.Errorf("%d bytes, past the limit: read %d bytes", size, len(data))
		case size <= 65536 && !bytes.Equal(data, want):
			t.Errorf("%d bytes: read %d bytes that differ", size, len(data))
		}
	}
	if _, _, err := readWhole(filepath.Join(dir, "missing"), 65536); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want os.ErrNotExist", err)
	}
	if _, _, err := readWhole(dir, 65536); err == nil {
		t.Error("a folder read as a file")
	}
}
