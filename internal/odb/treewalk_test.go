package odb_test

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// treeRepo commits two states and returns their trees: a base and a second
// state with every kind of change.
func treeRepo(t *testing.T) (*gittest.Repo, record.Hash, record.Hash) {
	t.Helper()
	r := gittest.Fixture(t, "treediff")
	a := mustHash(t, r.Git("rev-parse", "HEAD~1^{tree}"))
	b := mustHash(t, r.Git("rev-parse", "HEAD^{tree}"))
	return r, a, b
}

func mustHash(t *testing.T, s string) record.Hash {
	t.Helper()
	h, err := record.ParseHash(strings.TrimSpace(s))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// gitDiff is `git diff-tree -r` of two trees as Changes, sorted by path.
func gitDiff(t *testing.T, r *gittest.Repo, a, b record.Hash) []record.Change {
	t.Helper()
	out := r.Git("diff-tree", "-r", "-z", "--no-renames", a.String(), b.String())
	var changes []record.Change
	f := strings.Split(out, "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(f[i], ":"))
		p := f[i+1]
		c := record.Change{Path: p}
		if meta[4] != "A" {
			c.Before = record.FileState{Path: p, Mode: mustMode(t, meta[0]), Hash: mustHash(t, meta[2])}
		}
		if meta[4] != "D" {
			c.After = record.FileState{Path: p, Mode: mustMode(t, meta[1]), Hash: mustHash(t, meta[3])}
		}
		changes = append(changes, c)
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes
}

func mustMode(t *testing.T, s string) record.Mode {
	t.Helper()
	m, err := record.ParseMode(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDiffTreesMatchesGit(t *testing.T) {
	r, a, b := treeRepo(t)
	db := openDB(t, r.Dir)
	empty := mustHash(t, r.Git("hash-object", "-t", "tree", "-w", "/dev/null"))
	tests := []struct {
		name       string
		a, b       record.Hash
		gitA, gitB record.Hash // what git diffs; zero trees mean the empty tree
	}{
		{"changes", a, b, a, b},
		{"reverse", b, a, b, a},
		{"same", a, a, a, a},
		{"from nothing", record.ZeroHash, b, empty, b},
		{"to nothing", a, record.ZeroHash, a, empty},
		{"from the empty tree", odb.EmptyTree, a, empty, a},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.DiffTrees(tc.a, tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(gitDiff(t, r, tc.gitA, tc.gitB), got); diff != "" {
				t.Errorf("DiffTrees vs git diff-tree -r (-git +got):\n%s", diff)
			}
		})
	}
}

func TestLookupMatchesGit(t *testing.T) {
	r, _, b := treeRepo(t)
	db := openDB(t, r.Dir)
	var paths []string
	want := map[string]record.FileState{}
	for _, line := range strings.Split(r.Git("ls-tree", "-r", "-z", b.String()), "\x00") {
		meta, p, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		want[p] = record.FileState{Path: p, Mode: mustMode(t, f[0]), Hash: mustHash(t, f[2])}
		paths = append(paths, p)
	}
	// Absent: missing names, folders, paths through a file or a symlink.
	paths = append(paths, "nope", "dir", "new/deeper", "a.txt/x", "link/b.txt", "dir/sub/c.txt", "")
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			got, err := db.Lookup(b, p)
			if err != nil {
				t.Fatal(err)
			}
			w, ok := want[p]
			if !ok {
				w = record.FileState{Path: p}
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("Lookup(%q) (-git ls-tree +got):\n%s", p, diff)
			}
		})
	}
}

// gitOverlay computes with git what Overlay should give: read the base
// into a scratch index, apply each state, write the tree.
func gitOverlay(t *testing.T, r *gittest.Repo, base record.Hash, states []record.FileState) string {
	t.Helper()
	env := []string{"GIT_INDEX_FILE=" + t.TempDir() + "/index"}
	r.GitEnv(env, "read-tree", base.String())
	for _, s := range states {
		if s.Exists() {
			r.GitEnv(env, "update-index", "--add", "--replace", "--cacheinfo",
				s.Mode.String()+","+s.Hash.String()+","+s.Path)
		} else {
			r.GitEnv(env, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", s.Path)
		}
	}
	return r.GitEnv(env, "write-tree")
}

func TestOverlayMatchesGit(t *testing.T) {
	r, a, _ := treeRepo(t)
	db := openDB(t, r.Dir)
	blob := func(s string) record.Hash {
		h, err := db.Write(odb.TypeBlob, []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	f := func(p, content string) record.FileState {
		return record.FileState{Path: p, Mode: record.ModeFile, Hash: blob(content)}
	}
	gone := func(p string) record.FileState { return record.FileState{Path: p} }
	tests := []struct {
		name   string
		states []record.FileState
	}{
		{"nothing", nil},
		{"modify", []record.FileState{f("a.txt", "new a\n")}},
		{"modify deep", []record.FileState{f("dir/sub/c.txt", "new c\n")}},
		{"add in new folders", []record.FileState{f("n1/n2/n3.txt", "n\n")}},
		{"delete file", []record.FileState{gone("dir/b.txt")}},
		{"delete last file of a folder", []record.FileState{gone("gone/deep/f")}},
		{"delete whole folder", []record.FileState{gone("dir")}},
		{"delete missing", []record.FileState{gone("nope/nothing")}},
		{"exec and symlink", []record.FileState{
			{Path: "a.txt", Mode: record.ModeExec, Hash: blob("alpha\n")},
			{Path: "ln", Mode: record.ModeSymlink, Hash: blob("a.txt")},
		}},
		{"file replaces folder", []record.FileState{f("dir", "file now\n")}},
		{"folder replaces file", []record.FileState{f("x/inside", "folder now\n")}},
		{"sort order next to x-y", []record.FileState{f("x/a", "1"), f("x-z", "2"), f("x.a", "3")}},
		{"many at once", []record.FileState{
			f("a.txt", "1"), gone("dir/sub/d.txt"), f("dir/sub/e.txt", "2"), f("lib/y.go", "3"), gone("z-last"),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.Overlay(a, tc.states)
			if err != nil {
				t.Fatal(err)
			}
			want := gitOverlay(t, r, a, tc.states)
			if got.String() != want {
				t.Errorf("Overlay = %s, git = %s\n%s", got, want, cmp.Diff(r.Git("ls-tree", "-r", want), r.Git("ls-tree", "-r", got.String())))
			}
			gittest.CheckComplete(t, r.Dir, got)
		})
	}
}

func TestOverlayErrors(t *testing.T) {
	r, a, _ := treeRepo(t)
	db := openDB(t, r.Dir)
	h, err := db.Write(odb.TypeBlob, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	f := func(p string) record.FileState { return record.FileState{Path: p, Mode: record.ModeFile, Hash: h} }
	t.Run("file and folder at once", func(t *testing.T) {
		_, err := db.Overlay(a, []record.FileState{f("p"), f("p/q")})
		if !errors.Is(err, odb.ErrPathConflict) {
			t.Errorf("Overlay(p, p/q) error = %v, want odb.ErrPathConflict", err)
		}
	})
	for _, p := range []string{"", "/abs", "a//b", "trailing/"} {
		t.Run("bad path "+p, func(t *testing.T) {
			_, err := db.Overlay(a, []record.FileState{f(p)})
			if !errors.Is(err, record.ErrBadPath) {
				t.Errorf("Overlay(%q) error = %v, want record.ErrBadPath", p, err)
			}
		})
	}
}

func openDB(t *testing.T, dir string) *odb.DB {
	t.Helper()
	db, err := odb.Open(filepath.Join(dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestDiffTreesUnorderedTree diffs a tree whose entries are out of git's
// order (git never writes one; a forged checkpoint could) as the same
// entries in order.
func TestDiffTreesUnorderedTree(t *testing.T) {
	r := gittest.New(t)
	gitIn := func(stdin string, args ...string) string {
		t.Helper()
		out, err := git.Cmd{Dir: r.Dir, Args: args, Stdin: strings.NewReader(stdin)}.Run(context.Background())
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	blob := func(s string) string { return gitIn(s, "hash-object", "-w", "--stdin") }
	a, b, c := blob("a\n"), blob("b\n"), blob("c\n")
	entry := func(mode, name, id string) string {
		raw, err := hex.DecodeString(id)
		if err != nil {
			t.Fatal(err)
		}
		return mode + " " + name + "\x00" + string(raw)
	}
	unordered := gitIn(entry("100644", "z", c)+entry("100644", "b", b)+entry("100644", "a", a),
		"hash-object", "-t", "tree", "-w", "--literally", "--stdin")
	// git fsck refuses it: gone before the repository's own check.
	t.Cleanup(func() { os.Remove(filepath.Join(r.Dir, ".git", "objects", unordered[:2], unordered[2:])) })
	ordered := gitIn("100644 blob "+a+"\ta\n100644 blob "+b+"\tb\n100644 blob "+c+"\tz\n", "mktree")
	changed := gitIn("100644 blob "+c+"\ta\n100644 blob "+b+"\tb\n", "mktree")
	db := openDB(t, r.Dir)
	if got, err := db.DiffTrees(mustHash(t, unordered), mustHash(t, ordered)); err != nil || len(got) != 0 {
		t.Errorf("unordered vs the same entries in order: %v, %v; want no change", got, err)
	}
	want := gitDiff(t, r, mustHash(t, ordered), mustHash(t, changed))
	got, err := db.DiffTrees(mustHash(t, unordered), mustHash(t, changed))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DiffTrees from the unordered tree vs git diff-tree from the ordered one (-git +got):\n%s", diff)
	}
}
