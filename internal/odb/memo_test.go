package odb_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// A memo reads each object once from disk while an operation runs, as git
// stored it, hands out content its readers may change, and forgets when
// the last operation ends; existence checks look at the disk throughout.
func TestMemo(t *testing.T) {
	r, db := open(t)
	// Dangling loose objects: removing them leaves a repository git fsck
	// accepts.
	object := func(content string) (git.Hash, string) {
		t.Helper()
		tmp := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := git.ParseHash(r.Git("hash-object", "-w", "--no-filters", tmp))
		if err != nil {
			t.Fatal(err)
		}
		return h, filepath.Join(r.Dir, ".git", "objects", h.String()[:2], h.String()[2:])
	}
	remove := func(path string) {
		t.Helper()
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
	read := func(h git.Hash) ([]byte, error) {
		_, data, err := db.Read(h)
		return data, err
	}

	remembered, rpath := object("read during the operation\n")
	unread, upath := object("never read\n")
	end := db.Memo()
	endInner := db.Memo()
	data, err := read(remembered)
	if err != nil || string(data) != r.Git("cat-file", "blob", remembered.String())+"\n" {
		t.Fatalf("read %q, %v; git cat-file says otherwise", data, err)
	}
	data[0] = 'X' // the reader's own copy
	remove(rpath)
	remove(upath)
	if db.Has(remembered) {
		t.Error("Has found an object deleted from disk because the memo holds it")
	}
	if got, err := read(remembered); err != nil || string(got) != "read during the operation\n" {
		t.Errorf("a remembered object read %q, %v", got, err)
	}
	_, rc, size, err := db.Open(remembered)
	if err != nil {
		t.Fatalf("open a remembered object: %v", err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if size != int64(len(got)) || !bytes.Equal(got, []byte("read during the operation\n")) {
		t.Errorf("a remembered object opened as %q (size %d)", got, size)
	}
	if _, err := read(unread); !errors.Is(err, odb.ErrMissing) {
		t.Errorf("an object deleted before it was read: %v, want ErrMissing", err)
	}

	endInner()
	endInner() // a second call changes nothing
	if _, err := read(remembered); err != nil {
		t.Errorf("forgotten while an operation still remembers: %v", err)
	}
	end()
	if _, err := read(remembered); !errors.Is(err, odb.ErrMissing) {
		t.Errorf("read after the last operation ended: %v, want ErrMissing", err)
	}

	// Outside an operation nothing is remembered.
	h, path := object("outside\n")
	if _, err := read(h); err != nil {
		t.Fatal(err)
	}
	remove(path)
	if _, err := read(h); !errors.Is(err, odb.ErrMissing) {
		t.Errorf("read outside an operation came from memory: %v", err)
	}
	r.Git("fsck", "--no-progress")
}
