package odb_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/odb"
)

// TestReadsFromAlternates reads a clone made with --shared, which holds no
// object of its own, through every way of naming the repository it
// borrows from, and checks what it writes stays its own.
func TestReadsFromAlternates(t *testing.T) {
	origin := gittest.New(t)
	origin.Write("packed.txt", "in a pack\n")
	origin.Commit("packed")
	origin.Git("gc", "-q")
	origin.Write("loose.txt", "a loose object\n")
	origin.Commit("loose")
	packed := mustHash(t, origin.Git("rev-parse", "HEAD:packed.txt"))
	loose := mustHash(t, origin.Git("rev-parse", "HEAD:loose.txt"))

	clone := filepath.Join(filepath.Dir(origin.Dir), "clone")
	origin.Git("clone", "-q", "--shared", origin.Dir, clone)
	objects := filepath.Join(clone, ".git", "objects")
	alternates := filepath.Join(objects, "info", "alternates")
	originObjects := filepath.Join(origin.Dir, ".git", "objects")
	// A chain: the clone borrows from a middle folder that borrows from origin.
	middle := filepath.Join(filepath.Dir(origin.Dir), "middle", "objects")
	if err := os.MkdirAll(filepath.Join(middle, "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(middle, "info", "alternates"), []byte("../../repo/.git/objects\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	for name, listing := range map[string]string{
		"from the environment": "",
		"absolute":             originObjects + "\n",
		"relative":             "../../../repo/.git/objects\n",
		"quoted, with comment": "# borrowed\n\n" + `"` + originObjects + `"` + "\n",
		"missing first":        "/nonexistent/objects\n" + originObjects + "\n",
		"through another":      middle + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(alternates, []byte(listing), 0o644); err != nil {
				t.Fatal(err)
			}
			if listing == "" {
				t.Setenv("GIT_ALTERNATE_OBJECT_DIRECTORIES", "/nonexistent"+string(os.PathListSeparator)+originObjects)
			}
			db, err := odb.Open(filepath.Join(clone, ".git"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for want, h := range map[string]git.Hash{"in a pack\n": packed, "a loose object\n": loose} {
				if !db.Has(h) {
					t.Errorf("Has(%s) = false, want true", h)
				}
				if data, err := db.ReadAs(h, odb.TypeBlob); err != nil || string(data) != want {
					t.Errorf("ReadAs(%s) = %q, %v; want %q", h, data, err, want)
				}
			}
			if _, err := db.ReadAs(mustHash(t, strings.Repeat("ab", 20)), odb.TypeBlob); err == nil {
				t.Error("an object in neither repository was read")
			}
		})
	}

	// Writing an object the other repository has stores nothing; a new one
	// goes into the clone's own folder.
	if err := os.WriteFile(alternates, []byte(originObjects+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := odb.Open(filepath.Join(clone, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if h, err := db.Write(odb.TypeBlob, []byte("in a pack\n")); err != nil || h != packed {
		t.Fatalf("Write = %s, %v; want %s", h, err, packed)
	}
	fresh, err := db.Write(odb.TypeBlob, []byte("new in the clone\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(gitIn(t, clone, "count-objects"))); !strings.HasPrefix(got, "1 objects") {
		t.Errorf("the clone's own objects after two writes: %q, want the new one only", got)
	}
	if gittest.HasObject(origin.Dir, fresh) {
		t.Error("the new object went into the repository lent from")
	}
	if _, err := os.Stat(filepath.Join(objects, fresh.String()[:2], fresh.String()[2:])); err != nil {
		t.Errorf("the new object is not loose in the clone: %v", err)
	}
	gitIn(t, clone, "fsck", "--strict", "--no-progress")
}

func gitIn(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	out, err := git.Run(t.Context(), dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}
