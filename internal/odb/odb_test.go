package odb_test

import (
	"bytes"
	"context"
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
