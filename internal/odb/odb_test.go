package odb_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/odb"
)

func open(t *testing.T) (*gittest.Repo, *odb.DB) {
	t.Helper()
	r := gittest.New(t)
	db, err := odb.Open(filepath.Join(r.Dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return r, db
}

// Objects written in process are read back by git, with the ids git computes.
func TestWriteMatchesGit(t *testing.T) {
	r, db := open(t)
	for _, content := range []string{"", "hello\n", "no newline", "\x00binary\xff", strings.Repeat("x", 1<<20)} {
		h, err := db.Write(odb.TypeBlob, []byte(content))
		if err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if want := r.Git("hash-object", "--no-filters", tmp); h.String() != want {
			t.Errorf("blob id %s, git says %s", h, want)
		}
		if got := r.Git("cat-file", "-s", h.String()); got != itoa(len(content)) {
			t.Errorf("git cat-file -s = %s, want %d", got, len(content))
		}
		// Streaming gives the same id and a valid object.
		h2, err := db.WriteFile(tmp, int64(len(content)))
		if err != nil || h2 != h {
			t.Errorf("WriteFile = %s, %v; want %s", h2, err, h)
		}
	}
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	if n == 0 {
		return "0"
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// A file that changes size while it is streamed is refused, not stored torn.
func TestWriteStreamShortRead(t *testing.T) {
	_, db := open(t)
	_, err := db.WriteStream(bytes.NewReader([]byte("short")), 10)
	if err == nil || !strings.Contains(err.Error(), odb.ErrChanged.Error()) {
		t.Fatalf("err = %v, want ErrChanged", err)
	}
}

// Trees and commits encode as git's, and decode back.
func TestTreeAndCommitRoundTrip(t *testing.T) {
	r, db := open(t)
	blob, _ := db.Write(odb.TypeBlob, []byte("x\n"))
	sub, err := db.WriteTree([]odb.TreeEntry{{Name: "inner.txt", Mode: odb.ModeFile, Hash: blob}})
	if err != nil {
		t.Fatal(err)
	}
	entries := []odb.TreeEntry{
		{Name: "a.b", Mode: odb.ModeFile, Hash: blob},
		{Name: "a", Mode: odb.ModeTree, Hash: sub},
		{Name: "a-b", Mode: odb.ModeExec, Hash: blob},
		{Name: "link", Mode: odb.ModeSymlink, Hash: blob},
		{Name: "name with space", Mode: odb.ModeFile, Hash: blob},
	}
	odb.SortTree(entries)
	tree, err := db.WriteTree(entries)
	if err != nil {
		t.Fatal(err)
	}
	var mk strings.Builder
	for _, e := range entries {
		typ := "blob"
		if e.Mode == odb.ModeTree {
			typ = "tree"
		}
		mk.WriteString(e.Mode.String() + " " + typ + " " + e.Hash.String() + "\t" + e.Name + "\n")
	}
	out, err := git.Cmd{Dir: r.Dir, Args: []string{"mktree"}, Stdin: strings.NewReader(mk.String())}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); tree.String() != want {
		t.Errorf("tree %s, git mktree gives %s", tree, want)
	}
	back, err := db.ReadTree(tree)
	if err != nil || len(back) != len(entries) {
		t.Fatalf("ReadTree = %v, %v", back, err)
	}
	for i := range back {
		if back[i] != entries[i] {
			t.Errorf("entry %d = %+v, want %+v", i, back[i], entries[i])
		}
	}
	when := time.Unix(1700000000, 0).UTC()
	c := &odb.Commit{Tree: tree, Author: odb.Signature{Name: "a", Email: "a@b", When: when},
		Committer: odb.Signature{Name: "c", Email: "c@d", When: when}, Message: "msg\n"}
	ch, err := db.Write(odb.TypeCommit, odb.EncodeCommit(c))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Git("rev-parse", ch.String()+"^{tree}"); got != tree.String() {
		t.Errorf("git reads the commit's tree as %s", got)
	}
	r.Git("fsck", "--strict", "--no-dangling", ch.String())
	dc, err := db.ReadCommit(ch)
	if err != nil || dc.Tree != tree || dc.Message != "msg\n" || !dc.Author.When.Equal(when) {
		t.Errorf("ReadCommit = %+v, %v", dc, err)
	}
	if _, err := db.ReadTree(ch); err == nil {
		t.Error("a commit read as a tree must fail")
	}
}

func TestDecodeTreeRejectsGarbage(t *testing.T) {
	for _, data := range []string{"100644 x", "999 x\x00" + strings.Repeat("a", 20), "100644 a/b\x00" + strings.Repeat("a", 20), "100644 \x00" + strings.Repeat("a", 20)} {
		if _, err := odb.DecodeTree([]byte(data)); err == nil {
			t.Errorf("DecodeTree(%q) accepted", data)
		}
	}
}

// Objects git wrote, loose and packed, read back byte for byte as git
// cat-file shows them; a damaged loose object is an error, not data.
func TestReadLooseAndPacked(t *testing.T) {
	r, db := open(t)
	r.Write("a.txt", "loose blob\n")
	r.Write("big.bin", strings.Repeat("\x00\x01binary", 10000))
	r.Commit("init")
	check := func(when string) {
		t.Helper()
		for _, name := range []string{"HEAD", "HEAD^{tree}", "HEAD:a.txt", "HEAD:big.bin"} {
			id, err := git.ParseHash(r.Git("rev-parse", name))
			if err != nil {
				t.Fatal(err)
			}
			typ, data, err := db.Read(id)
			if err != nil {
				t.Fatalf("%s: read %s: %v", when, name, err)
			}
			if want := r.Git("cat-file", "-t", id.String()); string(typ) != want {
				t.Errorf("%s: %s is a %s, git says %s", when, name, typ, want)
			}
			want, err := git.Run(context.Background(), r.Dir, "cat-file", string(typ), id.String())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, want) {
				t.Errorf("%s: %s content differs from git cat-file", when, name)
			}
		}
	}
	check("loose")
	blob, _ := git.ParseHash(r.Git("rev-parse", "HEAD:a.txt"))
	path := filepath.Join(r.Dir, ".git", "objects", blob.String()[:2], blob.String()[2:])
	r.Git("gc", "-q", "--prune=now")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("after git gc the blob is still loose: %v", err)
	}
	check("packed")

	// A loose object cut short.
	h, err := db.Write(odb.TypeBlob, []byte(strings.Repeat("data ", 1000)))
	if err != nil {
		t.Fatal(err)
	}
	loose := filepath.Join(r.Dir, ".git", "objects", h.String()[:2], h.String()[2:])
	full, err := os.ReadFile(loose)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(loose, full[:len(full)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, data, err := db.Read(h); err == nil {
		t.Fatalf("a truncated loose object read as %d bytes without an error", len(data))
	}
	if err := os.Remove(loose); err != nil { // leave a repository git fsck accepts
		t.Fatal(err)
	}
}

// Has agrees with git cat-file -e for loose and packed objects, for absent
// ones, and for objects a git gc packs after the database looked at the
// packs (it rescans rather than say "missing").
func TestHasAgreesWithGit(t *testing.T) {
	r, db := open(t)
	for i := 0; i < 50; i++ {
		r.Write(fmt.Sprintf("d%d/f%d.txt", i%7, i), fmt.Sprintf("content %d\n", i))
	}
	r.Commit("init")
	r.Git("gc", "-q", "--prune=now")
	ids := strings.Fields(r.Git("rev-list", "--objects", "--all", "--no-object-names"))
	if len(ids) < 50 {
		t.Fatalf("only %d objects", len(ids))
	}
	for _, s := range ids {
		h, _ := git.ParseHash(s)
		if !db.Has(h) {
			t.Fatalf("packed object %s: Has says missing", s)
		}
	}
	for i := 0; i < 200; i++ { // absent ids spread over the fan-out table
		h := odb.HashObject(odb.TypeBlob, []byte(fmt.Sprintf("never written %d", i)))
		if db.Has(h) {
			t.Fatalf("absent object %s: Has says present", h)
		}
	}
	// Written loose now, packed by git gc while the database is open.
	r.Write("late.txt", "late\n")
	r.Commit("late")
	late, _ := git.ParseHash(r.Git("rev-parse", "HEAD:late.txt"))
	if !db.Has(late) {
		t.Fatal("loose object: Has says missing")
	}
	r.Git("gc", "-q", "--prune=now")
	if _, err := os.Stat(filepath.Join(r.Dir, ".git", "objects", late.String()[:2], late.String()[2:])); !os.IsNotExist(err) {
		t.Fatalf("still loose after gc: %v", err)
	}
	if !db.Has(late) {
		t.Fatal("object packed after the pack list was read: Has says missing")
	}
}
