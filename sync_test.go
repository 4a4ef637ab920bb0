package gitguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

func openGuard(t *testing.T, dir string) *gitguard.Guard {
	t.Helper()
	g, err := gitguard.Open(context.Background(), dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// TestPushReadByGoGit pushes runs to a bare repository and reads them back
// with go-git, an independent implementation of the ref and object formats.
func TestPushReadByGoGit(t *testing.T) {
	ctx := context.Background()
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	bare := filepath.Join(t.TempDir(), "remote.git")
	r.Git("init", "-q", "--bare", "-b", "main", bare)
	r.Git("remote", "add", "origin", bare)
	g := openGuard(t, r.Dir)
	run, err := g.StartRun(ctx, "r1", gitguard.CheckpointOptions{Label: "first"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Push(ctx, "origin", gitrefs.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Status != gitrefs.PushNew || res[0].Ref != gitrefs.RunRef("r1") {
		t.Fatalf("push results = %+v", res)
	}

	repo, err := gogit.PlainOpen(bare)
	if err != nil {
		t.Fatal(err)
	}
	iter, err := repo.References()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]plumbing.Hash{}
	_ = iter.ForEach(func(ref *plumbing.Reference) error {
		if ref.Type() == plumbing.HashReference {
			got[ref.Name().String()] = ref.Hash()
		}
		return nil
	})
	if len(got) != 1 || got[gitrefs.RunRef("r1")] != plumbing.Hash(run.Commit) {
		t.Fatalf("remote refs = %v, want only %s at %s", got, gitrefs.RunRef("r1"), run.Commit)
	}
	c, err := repo.CommitObject(plumbing.Hash(run.Commit))
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.File("checkpoint.json")
	if err != nil {
		t.Fatal(err)
	}
	content, err := f.Contents()
	if err != nil {
		t.Fatal(err)
	}
	var cp record.Checkpoint
	if err := json.Unmarshal([]byte(content), &cp); err != nil || cp.RunID != "r1" || cp.Label != "first" {
		t.Fatalf("checkpoint.json read by go-git = %+v, %v", cp, err)
	}
}

// forgery is a one-checkpoint run "evil" derived from a good checkpoint,
// which each case edits before it is written.
type forgery struct {
	cp      *record.Checkpoint
	root    []odb.TreeEntry
	parents []record.Hash
}

func TestVerifyRunRefusesHostile(t *testing.T) {
	ctx := context.Background()
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Write("dir/b.txt", "b\n")
	r.Commit("init")
	// The forged objects are unreachable; drop them before gittest's
	// fsck --strict, which rightly flags them.
	t.Cleanup(func() { r.Git("prune", "--expire=now") })
	g := openGuard(t, r.Dir)
	good, err := g.StartRun(ctx, "good", gitguard.CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := gitguard.StoreOf(g).VerifyRun(ctx, "good", good.Commit); err != nil {
		t.Fatalf("VerifyRun of a good run: %v", err)
	}
	base, err := gitguard.DBOf(g).ReadTree(good.Checkpoint.WorktreeTree)
	if err != nil {
		t.Fatal(err)
	}
	blob, _ := gitguard.DBOf(g).Write(odb.TypeBlob, []byte("x\n"))
	tree := func(entries ...odb.TreeEntry) record.Hash {
		odb.SortTree(entries)
		h, err := gitguard.DBOf(g).WriteTree(entries)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	withEntry := func(e odb.TreeEntry) record.Hash {
		return tree(append(append([]odb.TreeEntry{}, base...), e)...)
	}
	missing := record.Hash{1, 2, 3}
	who := odb.Signature{Name: "x", Email: "x@x", When: time.Unix(1700000000, 0)}

	tests := []struct {
		name string
		edit func(f *forgery)
		want string
	}{
		{"good copy", func(f *forgery) {}, ""},
		{"dot git folder", func(f *forgery) {
			f.cp.WorktreeTree = withEntry(odb.TreeEntry{Name: ".git", Mode: record.ModeTree, Hash: tree(odb.TreeEntry{Name: "config", Mode: record.ModeFile, Hash: blob})})
		}, `.git component`},
		{"dot git any case", func(f *forgery) {
			f.cp.WorktreeTree = withEntry(odb.TreeEntry{Name: ".GiT", Mode: record.ModeFile, Hash: blob})
		}, `.git component`},
		{"ntfs short name", func(f *forgery) {
			f.cp.WorktreeTree = withEntry(odb.TreeEntry{Name: "GIT~1", Mode: record.ModeTree, Hash: tree(odb.TreeEntry{Name: "config", Mode: record.ModeFile, Hash: blob})})
		}, "another spelling of .git"},
		{"dot dot entry", func(f *forgery) {
			f.cp.WorktreeTree = withEntry(odb.TreeEntry{Name: "..", Mode: record.ModeFile, Hash: blob})
		}, "relative component"},
		{"NTFS short name in the index", func(f *forgery) {
			f.cp.IndexTree = withEntry(odb.TreeEntry{Name: "GIT~1", Mode: record.ModeFile, Hash: blob})
		}, "another spelling of .git"},
		{"missing blob", func(f *forgery) {
			f.cp.WorktreeTree = withEntry(odb.TreeEntry{Name: "gone", Mode: record.ModeFile, Hash: missing})
		}, "object not found"},
		{"oversize through symlink", func(f *forgery) {
			link, _ := gitguard.DBOf(g).Write(odb.TypeBlob, []byte("/etc"))
			f.cp.WorktreeTree = withEntry(odb.TreeEntry{Name: "ln", Mode: record.ModeSymlink, Hash: link})
			f.cp.Oversize = []record.FileState{{Path: "ln/passwd", Mode: record.ModeFile, Hash: blob, Size: 1}}
		}, "runs through the symlink"},
		{"absolute oversize path", func(f *forgery) {
			f.cp.Oversize = []record.FileState{{Path: "/etc/passwd", Mode: record.ModeFile, Hash: blob, Size: 1}}
		}, "absolute"},
		{"terminal escape in label", func(f *forgery) { f.cp.Label = "\x1b]0;owned\x07" }, "control character"},
		{"wrong run id", func(f *forgery) { f.cp.RunID = "other" }, `record names run "other"`},
		{"wrong sequence", func(f *forgery) { f.cp.Seq, f.cp.ID = 2, "ckpt_002" }, "previous link and sequence number disagree"},
		{"newer format", func(f *forgery) { f.cp.Version = record.FormatVersion + 1 }, "format version not supported"},
		{"foreign parent", func(f *forgery) { f.parents = []record.Hash{missing} }, "neither the previous checkpoint nor HEAD"},
		{"extra root entry", func(f *forgery) {
			f.root = append(f.root, odb.TreeEntry{Name: "extra", Mode: record.ModeFile, Hash: blob})
		}, `unexpected entry "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cp := *good.Checkpoint
			cp.RunID = "evil"
			f := &forgery{cp: &cp, parents: []record.Hash{good.Checkpoint.Head.Commit}}
			tt.edit(f)
			data, _ := json.Marshal(f.cp)
			cj, _ := gitguard.DBOf(g).Write(odb.TypeBlob, data)
			root := append(f.root,
				odb.TreeEntry{Name: "checkpoint.json", Mode: record.ModeFile, Hash: cj},
				odb.TreeEntry{Name: "index", Mode: record.ModeTree, Hash: f.cp.IndexTree},
				odb.TreeEntry{Name: "worktree", Mode: record.ModeTree, Hash: f.cp.WorktreeTree})
			commit, err := gitguard.DBOf(g).Write(odb.TypeCommit, odb.EncodeCommit(&odb.Commit{
				Tree: tree(root...), Parents: f.parents, Message: "forged\n",
				Author: who, Committer: who,
			}))
			if err != nil {
				t.Fatal(err)
			}
			err = gitguard.StoreOf(g).VerifyRun(ctx, "evil", commit)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("VerifyRun = %v, want nil", err)
				}
				return
			}
			var ve *patchstore.VerifyError
			if !errors.Is(err, record.ErrCorrupt) || !errors.As(err, &ve) || ve.Run != "evil" || ve.Commit != commit {
				t.Fatalf("VerifyRun = %v, want a *VerifyError for run evil wrapping ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("VerifyRun = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

// TestFetchRefusesAndKeepsNothing fetches a remote holding a good and a
// hostile run: the good one arrives, the hostile one leaves no ref.
func TestFetchRefusesAndKeepsNothing(t *testing.T) {
	ctx := context.Background()
	src := gittest.New(t)
	src.Write("a.txt", "a\n")
	src.Commit("init")
	gs := openGuard(t, src.Dir)
	good, err := gs.StartRun(ctx, "good", gitguard.CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A hostile run: the good checkpoint's record under another run id.
	bad := *good.Checkpoint
	bad.RunID = "bad"
	bad.Label = "\x1b[2J"
	data, _ := json.Marshal(&bad)
	cj, _ := gitguard.DBOf(gs).Write(odb.TypeBlob, data)
	root, _ := gitguard.DBOf(gs).WriteTree([]odb.TreeEntry{
		{Name: "checkpoint.json", Mode: record.ModeFile, Hash: cj},
		{Name: "index", Mode: record.ModeTree, Hash: bad.IndexTree},
		{Name: "worktree", Mode: record.ModeTree, Hash: bad.WorktreeTree},
	})
	who := odb.Signature{Name: "x", Email: "x@x", When: time.Unix(1700000000, 0)}
	c, _ := gitguard.DBOf(gs).Write(odb.TypeCommit, odb.EncodeCommit(&odb.Commit{Tree: root, Parents: []record.Hash{bad.Head.Commit}, Message: "x\n", Author: who, Committer: who}))
	src.Git("update-ref", gitrefs.RunRef("bad"), c.String())

	dst := gittest.New(t)
	dst.Write("b.txt", "b\n")
	dst.Commit("other")
	dst.Git("remote", "add", "origin", src.Dir)
	before, err := gittest.UserState(dst.Dir, true)
	if err != nil {
		t.Fatal(err)
	}
	gd := openGuard(t, dst.Dir)
	rep, err := gd.Fetch(ctx, "origin", gitguard.FetchOptions{})
	var refused *gitguard.RefusedError
	if !errors.As(err, &refused) || !errors.Is(err, record.ErrCorrupt) || len(refused.Runs) != 1 || refused.Runs[0].Run != "bad" {
		t.Fatalf("Fetch = %v, want a RefusedError for run bad", err)
	}
	if len(rep.Results) != 2 || rep.Results[1].Action != gitguard.FetchNew || rep.Results[1].Run != "good" {
		t.Fatalf("results = %+v", rep.Results)
	}
	refs, err := gitguard.StoreOf(gd).Refs().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0].Name != gitrefs.RunRef("good") || refs[0].Hash != good.Commit {
		t.Fatalf("refs after fetch = %v, want only the good run", refs)
	}
	after, err := gittest.UserState(dst.Dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Fatalf("fetch changed user state:\n%s", gittest.Diff(before, after))
	}
}
