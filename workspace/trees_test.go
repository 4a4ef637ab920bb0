package workspace

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/odb"
)

// treeRepo commits two states and returns their trees: a base and a second
// state with every kind of change.
func treeRepo(t *testing.T) (*gittest.Repo, git.Hash, git.Hash) {
	t.Helper()
	r := gittest.New(t)
	base(t, r)
	r.Write("x-y", "sorts before x/ \n")
	r.Write("x", "file that becomes a folder\n")
	r.Write("gone/deep/f", "deleted folder\n")
	r.Commit("one")
	a := mustHash(t, r.Git("rev-parse", "HEAD^{tree}"))
	r.Write("a.txt", "modified\n")
	r.Chmod("exec.sh", 0o644)
	r.Symlink("dir", "link")
	r.Remove("x")
	r.Write("x/inside", "now a folder\n")
	r.Remove("dir/sub")
	r.Write("dir/sub", "folder became a file\n")
	r.Remove("gone")
	r.Write("new/deeper/n.txt", "added\n")
	r.Write("é name", "added\n")
	r.Commit("two")
	b := mustHash(t, r.Git("rev-parse", "HEAD^{tree}"))
	return r, a, b
}

func mustHash(t *testing.T, s string) git.Hash {
	t.Helper()
	h, err := git.ParseHash(strings.TrimSpace(s))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// gitDiff is `git diff-tree -r` of two trees as Changes, sorted by path.
func gitDiff(t *testing.T, r *gittest.Repo, a, b git.Hash) []Change {
	t.Helper()
	out := r.Git("diff-tree", "-r", "-z", "--no-renames", a.String(), b.String())
	var changes []Change
	f := strings.Split(out, "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(f[i], ":"))
		p := f[i+1]
		c := Change{Path: p}
		if meta[4] != "A" {
			c.Before = FileState{Path: p, Mode: mustMode(t, meta[0]), Hash: mustHash(t, meta[2])}
		}
		if meta[4] != "D" {
			c.After = FileState{Path: p, Mode: mustMode(t, meta[1]), Hash: mustHash(t, meta[3])}
		}
		changes = append(changes, c)
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes
}

func mustMode(t *testing.T, s string) odb.Mode {
	t.Helper()
	m, err := odb.ParseMode(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDiffTreesMatchesGit(t *testing.T) {
	r, a, b := treeRepo(t)
	db := openWS(t, r.Dir).DB
	empty := mustHash(t, r.Git("hash-object", "-t", "tree", "-w", "/dev/null"))
	tests := []struct {
		name       string
		a, b       git.Hash
		gitA, gitB git.Hash // what git diffs; zero trees mean the empty tree
	}{
		{"changes", a, b, a, b},
		{"reverse", b, a, b, a},
		{"same", a, a, a, a},
		{"from nothing", git.ZeroHash, b, empty, b},
		{"to nothing", a, git.ZeroHash, a, empty},
		{"from the empty tree", odb.EmptyTree, a, empty, a},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DiffTrees(db, tc.a, tc.b)
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
	db := openWS(t, r.Dir).DB
	var paths []string
	want := map[string]FileState{}
	for _, line := range strings.Split(r.Git("ls-tree", "-r", "-z", b.String()), "\x00") {
		meta, p, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		want[p] = FileState{Path: p, Mode: mustMode(t, f[0]), Hash: mustHash(t, f[2])}
		paths = append(paths, p)
	}
	// Absent: missing names, folders, paths through a file or a symlink.
	paths = append(paths, "nope", "dir", "new/deeper", "a.txt/x", "link/b.txt", "dir/sub/c.txt", "")
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			got, err := Lookup(db, b, p)
			if err != nil {
				t.Fatal(err)
			}
			w, ok := want[p]
			if !ok {
				w = FileState{Path: p}
			}
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("Lookup(%q) (-git ls-tree +got):\n%s", p, diff)
			}
		})
	}
}

// gitOverlay computes with git what Overlay should give: read the base
// into a scratch index, apply each state, write the tree.
func gitOverlay(t *testing.T, r *gittest.Repo, base git.Hash, states []FileState) string {
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
	db := openWS(t, r.Dir).DB
	blob := func(s string) git.Hash {
		h, err := db.Write(odb.TypeBlob, []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	f := func(p, content string) FileState { return FileState{Path: p, Mode: odb.ModeFile, Hash: blob(content)} }
	gone := func(p string) FileState { return FileState{Path: p} }
	tests := []struct {
		name   string
		states []FileState
	}{
		{"nothing", nil},
		{"modify", []FileState{f("a.txt", "new a\n")}},
		{"modify deep", []FileState{f("dir/sub/c.txt", "new c\n")}},
		{"add in new folders", []FileState{f("n1/n2/n3.txt", "n\n")}},
		{"delete file", []FileState{gone("dir/b.txt")}},
		{"delete last file of a folder", []FileState{gone("gone/deep/f")}},
		{"delete whole folder", []FileState{gone("dir")}},
		{"delete missing", []FileState{gone("nope/nothing")}},
		{"exec and symlink", []FileState{
			{Path: "a.txt", Mode: odb.ModeExec, Hash: blob("alpha\n")},
			{Path: "ln", Mode: odb.ModeSymlink, Hash: blob("a.txt")},
		}},
		{"file replaces folder", []FileState{f("dir", "file now\n")}},
		{"folder replaces file", []FileState{f("x/inside", "folder now\n")}},
		{"sort order next to x-y", []FileState{f("x/a", "1"), f("x-z", "2"), f("x.a", "3")}},
		{"many at once", []FileState{
			f("a.txt", "1"), gone("dir/sub/d.txt"), f("dir/sub/e.txt", "2"), f("lib/y.go", "3"), gone("z-last"),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Overlay(db, a, tc.states)
			if err != nil {
				t.Fatal(err)
			}
			want := gitOverlay(t, r, a, tc.states)
			if got.String() != want {
				t.Errorf("Overlay = %s, git = %s\n%s", got, want, cmp.Diff(lsTree(t, r.Dir, want), lsTree(t, r.Dir, got.String())))
			}
			checkComplete(t, r.Dir, got)
		})
	}
}

func TestOverlayErrors(t *testing.T) {
	r, a, _ := treeRepo(t)
	db := openWS(t, r.Dir).DB
	h, err := db.Write(odb.TypeBlob, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	f := func(p string) FileState { return FileState{Path: p, Mode: odb.ModeFile, Hash: h} }
	t.Run("file and folder at once", func(t *testing.T) {
		_, err := Overlay(db, a, []FileState{f("p"), f("p/q")})
		if !errors.Is(err, ErrPathConflict) {
			t.Errorf("Overlay(p, p/q) error = %v, want ErrPathConflict", err)
		}
	})
	for _, p := range []string{"", "/abs", "a//b", "trailing/"} {
		t.Run("bad path "+p, func(t *testing.T) {
			_, err := Overlay(db, a, []FileState{f(p)})
			if !errors.Is(err, ErrBadPath) {
				t.Errorf("Overlay(%q) error = %v, want ErrBadPath", p, err)
			}
		})
	}
}
