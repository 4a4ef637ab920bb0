//go:build unix

package odb_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// writeKeptPack writes a blob and a tree over it in a pack batch and
// flushes them as a pack guarded by a .keep file; end ends the batch.
func writeKeptPack(t *testing.T, db *odb.DB, tag string) (ids []git.Hash, end func()) {
	t.Helper()
	db.StartPackBatch()
	blob, err := db.Write(odb.TypeBlob, []byte(tag+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := db.WriteTree([]odb.TreeEntry{{Name: tag + ".txt", Mode: odb.ModeFile, Hash: blob}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	return []git.Hash{blob, tree}, func() {
		t.Helper()
		if err := errors.Join(db.EndPackBatch(), db.Sync()); err != nil {
			t.Fatal(err)
		}
	}
}

// packFiles returns the names in objects/pack.
func packFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".git", "objects", "pack"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// A pack written after MakeSpares is written into the spare files: its
// pack, index and .keep are those files (no new ones), git verifies and
// reads it, and nothing of the spares shows in objects/pack.
func TestPackTakesSpareFiles(t *testing.T) {
	r, db := open(t)
	db.MakeSpares()
	spares := filepath.Join(r.Dir, ".git", "gitguard", "spares")
	made := map[string]os.FileInfo{}
	for i := range 6 {
		fi, err := os.Lstat(filepath.Join(spares, strconv.Itoa(i)))
		if err != nil {
			t.Fatalf("spare %d not made: %v", i, err)
		}
		made[strconv.Itoa(i)] = fi
	}
	ids, end := writeKeptPack(t, db, "spare")
	var pack, idx, keep string
	for _, n := range packFiles(t, r.Dir) {
		switch filepath.Ext(n) {
		case ".pack":
			pack = n
		case ".idx":
			idx = n
		case ".keep":
			keep = n
		default:
			t.Errorf("objects/pack holds %s", n)
		}
	}
	if pack == "" || idx == "" || keep == "" {
		t.Fatalf("objects/pack = %v, want a pack, its index and a .keep", packFiles(t, r.Dir))
	}
	for _, n := range []string{pack, idx, keep} {
		fi, err := os.Stat(filepath.Join(r.Dir, ".git", "objects", "pack", n))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o444 {
			t.Errorf("%s has mode %v, want read-only", n, fi.Mode().Perm())
		}
		taken := ""
		for name, spare := range made {
			if os.SameFile(fi, spare) {
				taken = name
			}
		}
		if taken == "" {
			t.Errorf("%s is a new file, not a spare", n)
		}
		delete(made, taken)
	}
	if left, _ := os.ReadDir(spares); len(left) != 3 {
		t.Errorf("%d spares left, want 3", len(left))
	}
	keepData, err := os.ReadFile(filepath.Join(r.Dir, ".git", "objects", "pack", keep))
	if err != nil || !strings.HasPrefix(string(keepData), "gitguard:") {
		t.Errorf(".keep holds %q (%v), want gitguard's note", keepData, err)
	}
	end()
	r.Git("verify-pack", filepath.Join(".git", "objects", "pack", idx))
	for _, h := range ids {
		if got := r.Git("cat-file", "-t", h.String()); got != "blob" && got != "tree" {
			t.Errorf("git cat-file -t %s = %q", h, got)
		}
	}
	if got := r.Git("count-objects", "-v"); !strings.Contains(got, "garbage: 0") {
		t.Errorf("git count-objects -v:\n%s", got)
	}
	if names := packFiles(t, r.Dir); len(names) != 2 {
		t.Errorf("objects/pack after the batch = %v, want the pack and its index", names)
	}
}

// What an agent puts in the spares' place is never written nor deleted: a
// link to a file of the user's, a second name of one, a file with
// content, a folder. The pack is then written into new files.
func TestPlantedSparesUntouched(t *testing.T) {
	r, db := open(t)
	spares := filepath.Join(r.Dir, ".git", "gitguard", "spares")
	if err := os.MkdirAll(filepath.Join(spares, "3"), 0o700); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	victim, empty := filepath.Join(outside, "notes.txt"), filepath.Join(outside, "empty")
	for path, content := range map[string]string{victim: "the user's notes\n", empty: "", filepath.Join(spares, "2"): "not empty"} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(victim, filepath.Join(spares, "0")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(empty, filepath.Join(spares, "1")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(spares, "3", "inside"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ids, end := writeKeptPack(t, db, "planted")
	end()
	for path, want := range map[string]string{victim: "the user's notes\n", empty: "", filepath.Join(spares, "1"): "",
		filepath.Join(spares, "2"): "not empty", filepath.Join(spares, "3", "inside"): "x"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", path, got, err, want)
		}
	}
	if target, err := os.Readlink(filepath.Join(spares, "0")); err != nil || target != victim {
		t.Errorf("the planted link is %q, %v", target, err)
	}
	for _, n := range packFiles(t, r.Dir) {
		if strings.HasPrefix(n, "tmp_") {
			t.Errorf("objects/pack holds %s", n)
		}
	}
	for _, h := range ids {
		if got := r.Git("cat-file", "-t", h.String()); got != "blob" && got != "tree" {
			t.Errorf("git cat-file -t %s = %q", h, got)
		}
	}
	r.Git("fsck", "--strict")
}

// A spares folder that is a link to another folder is not used: no file
// is made in it, and none taken from it.
func TestSparesFolderLinkIgnored(t *testing.T) {
	r, db := open(t)
	elsewhere := t.TempDir()
	if err := os.WriteFile(filepath.Join(elsewhere, "0"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(r.Dir, ".git", "gitguard"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(r.Dir, ".git", "gitguard", "spares")); err != nil {
		t.Fatal(err)
	}
	db.MakeSpares()
	_, end := writeKeptPack(t, db, "linked")
	end()
	entries, err := os.ReadDir(elsewhere)
	if err != nil || len(entries) != 1 || entries[0].Name() != "0" {
		t.Fatalf("the linked folder holds %v (%v), want only its own file", entries, err)
	}
	r.Git("fsck", "--strict")
}

// A spare made an hour ago is taken as a file made now: git prune removes
// a temporary file in objects/pack older than its expiry, and a rename
// keeps the file's time.
func TestTakenSpareIsNew(t *testing.T) {
	r, db := open(t)
	db.MakeSpares()
	spares := filepath.Join(r.Dir, ".git", "gitguard", "spares")
	old := time.Now().Add(-time.Hour)
	for i := range 6 {
		if err := os.Chtimes(filepath.Join(spares, strconv.Itoa(i)), old, old); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(r.Dir, ".git", "objects", "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f := db.TakeSpare(dir, "tmp_pack_")
	if f == nil {
		t.Fatal("no spare taken")
	}
	defer os.Remove(f.Name())
	defer f.Close()
	fi, err := os.Stat(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if age := time.Since(fi.ModTime()); age > time.Minute {
		t.Errorf("the taken spare looks %s old", age.Round(time.Second))
	}
	if !strings.HasPrefix(filepath.Base(f.Name()), "tmp_pack_") || filepath.Dir(f.Name()) != dir {
		t.Errorf("taken as %s", f.Name())
	}
}

// A .keep written into a spare passes through objects/pack under a tmp_
// name, which git prune --prune=now deletes whatever its age: gone before
// its rename, the .keep is written anew and the pack is still guarded.
func TestKeepWrittenWhenItsSpareIsPruned(t *testing.T) {
	r, db := open(t)
	db.MakeSpares()
	pruned := ""
	defer odb.SetKeepTaken(func(tmp string) {
		pruned = tmp
		r.Git("prune", "--expire=now")
	})()
	ids, end := writeKeptPack(t, db, "pruned")
	if pruned == "" {
		t.Fatal("the .keep did not take a spare")
	}
	if _, err := os.Lstat(pruned); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("git prune left %s: %v", pruned, err)
	}
	keeps, _ := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "*.keep"))
	if len(keeps) != 1 {
		t.Fatalf(".keep files: %v, want the pack's", keeps)
	}
	if data, err := os.ReadFile(keeps[0]); err != nil || !strings.HasPrefix(string(data), "gitguard:") {
		t.Errorf(".keep holds %q (%v), want gitguard's note", data, err)
	}
	end()
	for _, h := range ids {
		if got := r.Git("cat-file", "-t", h.String()); got != "blob" && got != "tree" {
			t.Errorf("git cat-file -t %s = %q", h, got)
		}
	}
}
