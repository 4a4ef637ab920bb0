package odb_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// old is a time far beyond git's default prune grace of two weeks.
var old = time.Now().Add(-60 * 24 * time.Hour)

func mtime(t *testing.T, path string) time.Time {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}

func loosePath(dir string, h git.Hash) string {
	s := h.String()
	return filepath.Join(dir, ".git", "objects", s[:2], s[2:])
}

func recent(t *testing.T, what string, path string) {
	t.Helper()
	if m := mtime(t, path); time.Since(m) > time.Hour {
		t.Errorf("%s: modified %s, not freshened", what, m.Format(time.RFC3339))
	}
}

// An object found already stored, loose or packed, and reused instead of
// written gets a new modification time, as git's freshen_*_object gives
// it, so that a default git gc (two weeks of grace) does not delete an old
// unreachable object a new checkpoint names. Each way a writer reuses an
// object freshens it.
func TestReuseFreshensLooseObject(t *testing.T) {
	for _, how := range []string{"Write", "WriteFile", "HasForWrite", "Reuse"} {
		t.Run(how, func(t *testing.T) {
			r, db := open(t)
			content := "reused " + how + "\n"
			r.Write("f", content)
			id := mustHash(t, r.Git("hash-object", "-w", "f"))
			path := loosePath(r.Dir, id)
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
			if m := mtime(t, path); time.Since(m) < 24*time.Hour {
				t.Fatalf("mtime not set old: %s", m)
			}
			var got git.Hash
			var err error
			switch how {
			case "Write":
				got, err = db.Write(odb.TypeBlob, []byte(content))
			case "WriteFile":
				got, err = db.WriteFile(filepath.Join(r.Dir, "f"), int64(len(content)))
			case "HasForWrite":
				got = id
				if !db.HasForWrite(id) {
					t.Fatal("HasForWrite: object not found")
				}
			case "Reuse":
				got = id
				if !db.Reuse(id) {
					t.Fatal("Reuse: object not found")
				}
			}
			if err != nil || got != id {
				t.Fatalf("%s = %s, %v; want %s", how, got, err, id)
			}
			recent(t, "loose object", path)
		})
	}
}

func TestReuseFreshensPack(t *testing.T) {
	r, db := open(t)
	r.Write("f", "packed and reused\n")
	id := mustHash(t, r.Git("hash-object", "-w", "f"))
	// Packed while a tag names it, then unreachable.
	r.Git("tag", "keep", id.String())
	r.Git("repack", "-q", "-a", "-d")
	r.Git("tag", "-d", "keep")
	if _, err := os.Lstat(loosePath(r.Dir, id)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("object still loose after repack: %v", err)
	}
	packs, _ := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "*.pack"))
	var pack string
	for _, p := range packs {
		if strings.Contains(r.Git("verify-pack", "-v", strings.TrimSuffix(p, ".pack")+".idx"), id.String()) {
			pack = p
		}
	}
	if pack == "" {
		t.Fatalf("no pack holds %s", id)
	}
	if err := os.Chtimes(pack, old, old); err != nil {
		t.Fatal(err)
	}
	got, err := db.Write(odb.TypeBlob, []byte("packed and reused\n"))
	if err != nil || got != id {
		t.Fatalf("Write = %s, %v; want %s", got, err, id)
	}
	recent(t, "pack", pack)
	if _, err := os.Lstat(loosePath(r.Dir, id)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a packed object was written again loose: %v", err)
	}
	// Old unreachable objects survive a default git gc once reused.
	r.Git("gc", "-q")
	if r.Git("cat-file", "-t", id.String()) != "blob" {
		t.Error("git gc deleted the freshened object")
	}
}

// A freshened object that git prune then deletes is not taken as present
// from the memory of having freshened it: the writer writes it again.
func TestFreshenedThenPrunedIsWrittenAgain(t *testing.T) {
	r, db := open(t)
	id, err := db.Write(odb.TypeBlob, []byte("pruned\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !db.HasForWrite(id) { // freshens, and remembers having done so
		t.Fatal("written object not found")
	}
	r.Git("prune", "--expire=now")
	if _, err := os.Lstat(loosePath(r.Dir, id)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("git prune left the unreachable object: %v", err)
	}
	if db.HasForWrite(id) {
		t.Error("HasForWrite says a pruned object is there")
	}
	if _, err := db.Write(odb.TypeBlob, []byte("pruned\n")); err != nil {
		t.Fatal(err)
	}
	if r.Git("cat-file", "-t", id.String()) != "blob" {
		t.Error("object not written again")
	}
}
