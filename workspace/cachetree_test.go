package workspace

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// The worktree tree takes the tree of every folder the walk found as the
// index has it from the index's cache-tree, and is still the tree `git add
// -A` stages: changed, deleted, untracked, intent-to-add and staged paths
// around unchanged folders.
func TestSnapshotReusesCacheTree(t *testing.T) {
	cases := []struct {
		name      string
		setup     func(t *testing.T, r *gittest.Repo)
		wantReuse int // folders taken from the cache-tree, -1: at least one
	}{
		{"nothing changed", func(t *testing.T, r *gittest.Repo) {}, 1},
		{"file changed deep", func(t *testing.T, r *gittest.Repo) {
			r.Write("dir/sub/c.txt", "charlie changed\n")
		}, -1},
		{"file deleted", func(t *testing.T, r *gittest.Repo) {
			r.Remove("dir/sub/d.txt")
		}, -1},
		{"untracked in an unchanged folder", func(t *testing.T, r *gittest.Repo) {
			r.Write("dir/sub/new.txt", "new\n")
		}, -1},
		{"untracked folder", func(t *testing.T, r *gittest.Repo) {
			r.Write("newdir/x", "x\n")
		}, -1},
		{"intent to add", func(t *testing.T, r *gittest.Repo) {
			r.Write("lib/y.go", "package lib\n")
			r.Git("add", "-N", "lib/y.go")
		}, -1},
		{"staged and written", func(t *testing.T, r *gittest.Repo) {
			r.Write("lib/x.go", "package lib // staged\n")
			r.Git("add", "lib/x.go")
			r.Git("write-tree")
		}, -1},
		{"staged, cache-tree invalidated", func(t *testing.T, r *gittest.Repo) {
			r.Write("dir/b.txt", "bravo staged\n")
			r.Git("add", "dir/b.txt")
			r.Write("dir/b.txt", "bravo staged then changed\n")
		}, -1},
		{"folder replaced by a file", func(t *testing.T, r *gittest.Repo) {
			r.Remove("lib")
			r.Write("lib", "a file now\n")
		}, -1},
		{"executable bit cleared", func(t *testing.T, r *gittest.Repo) {
			r.Chmod("exec.sh", 0o644)
		}, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := gittest.New(t)
			base(t, r)
			r.Write("lib/deep/er/z.go", "package er\n")
			r.Write("other/o.txt", "other\n")
			backdate(t, r.Dir)
			r.Git("add", "-A")
			r.Git("commit", "-q", "-m", "more folders")
			tc.setup(t, r)
			s := snap(t, r.Dir)
			checkOracle(t, r.Dir)
			switch {
			case tc.wantReuse < 0 && s.Stats.TreesFromIndex == 0:
				t.Errorf("no folder tree taken from the cache-tree (stats %+v)", s.Stats)
			case tc.wantReuse >= 0 && s.Stats.TreesFromIndex != tc.wantReuse:
				t.Errorf("%d folder trees taken from the cache-tree, want %d", s.Stats.TreesFromIndex, tc.wantReuse)
			}
		})
	}
}

// A cache-tree that names a tree the object database does not have, and
// that its folder's entries do not give (an index written by another tool,
// say), is not trusted: every tree is built, and the result is git's (git
// too recomputes a cache-tree tree it does not have).
func TestSnapshotStaleCacheTree(t *testing.T) {
	r := gittest.New(t)
	base(t, r)
	r.Write("a.txt", "alpha changed\n") // the top folder changes, dir/ does not
	bogus := record.Hash{0x0b, 0x09, 0x05}
	setCacheTree(t, filepath.Join(r.Dir, ".git", "index"), "dir", bogus)
	t.Cleanup(func() { r.Git("read-tree", "HEAD") }) // before fsck looks at the index
	s := snap(t, r.Dir)
	checkOracle(t, r.Dir)
	if s.Stats.TreesFromIndex == 0 {
		t.Errorf("the bogus cache-tree folder was not looked at (stats %+v)", s.Stats)
	}
}

// A folder's tree taken from the cache-tree but missing from the object
// database (deleted by a prune, say) is built from its entries and stored.
func TestWriteTreeReusingMissing(t *testing.T) {
	r := gittest.New(t)
	base(t, r)
	w := openWS(t, r.Dir)
	flat := []flatEntry{
		{path: "a.txt", mode: record.ModeFile, hash: mustHash(t, r.Git("rev-parse", "HEAD:a.txt"))},
		{path: "new/one", mode: record.ModeFile, hash: mustHash(t, r.Git("rev-parse", "HEAD:a.txt"))},
		{path: "new/two", mode: record.ModeFile, hash: mustHash(t, r.Git("rev-parse", "HEAD:dir/b.txt"))},
	}
	sub, err := buildTree(flat[1:], len("new/"))
	if err != nil {
		t.Fatal(err)
	}
	if w.db.Has(sub.hash) {
		t.Fatalf("tree %s already stored", sub.hash)
	}
	reuse := func(dir string) (record.Hash, bool) { return sub.hash, dir == "new" }
	var st Stats
	root, err := w.writeFlatTreeReusing(flat, reuse, &st)
	if err != nil {
		t.Fatal(err)
	}
	if st.TreesFromIndex != 1 {
		t.Errorf("TreesFromIndex = %d, want 1", st.TreesFromIndex)
	}
	if err := w.db.Sync(); err != nil {
		t.Fatal(err)
	}
	want := "100644 blob " + flat[1].hash.String() + "\tone\n100644 blob " + flat[2].hash.String() + "\ttwo"
	if got := r.Git("ls-tree", root.String()+":new"); got != want {
		t.Errorf("new/ = %q, want %q", got, want)
	}
}

func mustHash(t *testing.T, s string) record.Hash {
	t.Helper()
	h, err := record.ParseHash(strings.TrimSpace(s))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// setCacheTree rewrites the id the index at path's cache-tree holds for
// folder (a direct child of the top), and the index's checksum.
func setCacheTree(t *testing.T, path, folder string, id record.Hash) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.LastIndex(data, []byte("TREE"))
	if at < 0 {
		t.Fatal("index has no cache-tree")
	}
	size := int(binary.BigEndian.Uint32(data[at+4:]))
	ext := data[at+8 : at+8+size]
	// The top's entry (an empty name) comes first, then its subfolders.
	k := bytes.Index(ext, []byte(folder+"\x00"))
	if k < 0 {
		t.Fatalf("cache-tree has no folder %s", folder)
	}
	k += len(folder) + 1
	nl := bytes.IndexByte(ext[k:], '\n')
	if nl < 0 || ext[k] == '-' {
		t.Fatalf("cache-tree folder %s is not valid", folder)
	}
	copy(ext[k+nl+1:], id[:])
	sum := sha1.Sum(data[:len(data)-20])
	copy(data[len(data)-20:], sum[:])
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := parseIndex(data); err != nil {
		t.Fatal(err)
	}
}
