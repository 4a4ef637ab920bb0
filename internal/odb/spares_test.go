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
// pack and index are those files, its .keep a link to the keep file (no
// new ones), git verifies and reads it, and nothing of the spares shows in
// objects/pack.
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
	keepFile, err := os.Lstat(filepath.Join(r.Dir, ".git", "gitguard", "keep"))
	if err != nil {
		t.Fatal(err)
	}
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
		if n == keep {
			if !os.SameFile(fi, keepFile) {
				t.Errorf("%s is not a link to the keep file", n)
			}
			continue
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
	if left, _ := os.ReadDir(spares); len(left) != 4 {
		t.Errorf("%d spares left, want 4", len(left))
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

// Every .keep is a link to gitguard's keep file: two packs of one batch
// make no file for theirs, and once the batch ends only the keep file is
// left. What an agent puts in the keep file's place (a second name of a
// user's file, a link to one) is replaced, never linked to: the user's
// file gains no name.
func TestKeepsAreLinksToOneFile(t *testing.T) {
	r, db := open(t)
	base := filepath.Join(r.Dir, ".git", "gitguard", "keep")
	db.StartPackBatch()
	for _, tag := range []string{"one", "two"} {
		for _, line := range []string{"a", "b"} { // one object would be stored loose
			if _, err := db.Write(odb.TypeBlob, []byte(tag+line+"\n")); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	keeps, _ := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "*.keep"))
	if len(keeps) != 2 {
		t.Fatalf(".keep files: %v, want the two packs'", keeps)
	}
	made, err := os.Lstat(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keeps {
		fi, err := os.Lstat(k)
		if err != nil || !os.SameFile(fi, made) {
			t.Errorf("%s is not a link to the keep file (%v)", k, err)
		}
		if data, err := os.ReadFile(k); err != nil || string(data) != "gitguard: objects no ref names yet\n" {
			t.Errorf("%s holds %q (%v), want gitguard's note", k, data, err)
		}
	}
	if err := errors.Join(db.EndPackBatch(), db.Sync()); err != nil {
		t.Fatal(err)
	}
	if keeps, _ := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "*.keep")); len(keeps) != 0 {
		t.Errorf(".keep files after the batch: %v", keeps)
	}
	if got := r.Git("count-objects", "-v"); !strings.Contains(got, "garbage: 0") {
		t.Errorf("git count-objects -v:\n%s", got)
	}

	r.Write("user.txt", "the user's\n")
	user := filepath.Join(r.Dir, "user.txt")
	for _, plant := range []struct {
		name string
		do   func() error
	}{
		{"a second name of a user's file", func() error { return os.Link(user, base) }},
		{"a link to a user's file", func() error { return os.Symlink(user, base) }},
	} {
		if err := os.Remove(base); err != nil {
			t.Fatal(err)
		}
		if err := plant.do(); err != nil {
			t.Fatal(err)
		}
		before, err := os.Lstat(user)
		if err != nil {
			t.Fatal(err)
		}
		ids, end := writeKeptPack(t, db, strings.Fields(plant.name)[1])
		keeps, _ := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "*.keep"))
		if len(keeps) != 1 {
			t.Fatalf("%s: .keep files %v, want one", plant.name, keeps)
		}
		fi, err := os.Lstat(keeps[0])
		if err != nil || !fi.Mode().IsRegular() || os.SameFile(fi, before) {
			t.Errorf("%s: the .keep is %v (%v), want a file that is not the user's", plant.name, fi.Mode(), err)
		}
		end()
		after, err := os.Lstat(user)
		if err != nil || !os.SameFile(after, before) || r.Read("user.txt") != "the user's\n" {
			t.Errorf("%s: the user's file changed", plant.name)
		}
		if fi, err := os.Lstat(base); err != nil || os.SameFile(fi, after) || !fi.Mode().IsRegular() {
			t.Errorf("%s: the keep file is still the planted one (%v)", plant.name, err)
		}
		for _, h := range ids {
			if got := r.Git("cat-file", "-t", h.String()); got != "blob" && got != "tree" {
				t.Errorf("git cat-file -t %s = %q", h, got)
			}
		}
	}
}
