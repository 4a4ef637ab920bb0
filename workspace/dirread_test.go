package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFolderReader holds this build's folder reader (getdents on Linux,
// os.ReadDir elsewhere and with -tags gitguard_portable) to what the os
// package says of the same folder: the same names and kinds, the same
// lstat data, and no following of a folder swapped for a symlink.
func TestFolderReader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	names := []string{"plain.txt", "with space", "-leading-dash", "A\u0308-nfd", "\u00c4-nfc", "empty"}
	if runtime.GOOS != "windows" {
		names = append(names, "new\nline")
	}
	for i, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), make([]byte, i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := runtime.GOOS != "windows"
	if links {
		if err := os.Symlink("plain.txt", filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("sub", filepath.Join(dir, "sublink")); err != nil {
			t.Fatal(err)
		}
	}

	f, err := openFolder(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	list, err := f.list(nil)
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Name string
		Kind fileKind
		Size int64
	}
	var got []entry
	for _, de := range list {
		var st fileStat
		if err := f.lstat(de.name, &st); err != nil {
			t.Fatalf("lstat %q: %v", de.name, err)
		}
		if de.kind != kindUnknown && de.kind != st.kind {
			t.Errorf("%q: listed as kind %d, lstat says %d", de.name, de.kind, st.kind)
		}
		size := st.size
		if st.kind == kindDir {
			size = 0 // folder sizes are the file system's business
		}
		got = append(got, entry{de.name, st.kind, size})
	}
	osList, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []entry
	for _, de := range osList {
		fi, err := os.Lstat(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		kind := kindFile
		switch {
		case fi.IsDir():
			kind = kindDir
		case fi.Mode()&os.ModeSymlink != 0:
			kind = kindSymlink
		}
		size := fi.Size()
		if kind == kindDir {
			size = 0
		}
		want = append(want, entry{de.Name(), kind, size})
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Name < got[j].Name })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listing differs from os.ReadDir and os.Lstat (-want +got):\n%s", diff)
	}

	gone := []string{filepath.Join(dir, "missing"), filepath.Join(dir, "plain.txt")}
	if links {
		gone = append(gone, filepath.Join(dir, "sublink"))
	}
	for _, p := range gone {
		if g, err := openFolder(p, false); !errors.Is(err, errFolderGone) {
			if g != nil {
				g.close()
			}
			t.Errorf("openFolder(%s, false) = %v, want errFolderGone", filepath.Base(p), err)
		}
	}
	var st fileStat
	if err := f.lstat("missing", &st); !isGone(err) {
		t.Errorf("lstat of a missing name = %v, want a not-exist error", err)
	}
}
