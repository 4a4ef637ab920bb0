package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// conflictedMerge leaves r in a merge stopped on three kinds of conflict:
// a.txt both modified, dir/b.txt deleted by them, new.txt both added; and
// one clean change from the other side (dir/sub/c.txt).
func conflictedMerge(t *testing.T, r *gittest.Repo) {
	t.Helper()
	base(t, r)
	r.Git("checkout", "-q", "-b", "other")
	r.Write("a.txt", "other\n")
	r.Remove("dir/b.txt")
	r.Write("new.txt", "theirs\n")
	r.Write("dir/sub/c.txt", "changed by other\n")
	r.Git("add", "-A")
	r.Commit("other")
	r.Git("checkout", "-q", "main")
	r.Write("a.txt", "main\n")
	r.Write("dir/b.txt", "bravo on main\n")
	r.Write("new.txt", "ours\n")
	r.Git("add", "-A")
	r.Commit("main")
	if _, err := git.Run(context.Background(), r.Dir, "merge", "-q", "other"); err == nil {
		t.Fatal("merge did not conflict")
	}
}

// lsFilesStages returns `git ls-files -s` as (path, stage) → "mode hash".
func lsFilesStages(t *testing.T, dir string) map[string]string {
	t.Helper()
	out, err := git.Run(context.Background(), dir, "ls-files", "-s", "-z")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		meta, path, _ := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		m[path+" "+f[2]] = f[0] + " " + f[1]
	}
	return m
}

// TestSnapshotUnmerged: a merge stopped on conflicts is recorded without
// touching the index: the work tree exactly as git add -A would stage it
// (conflict markers included), the index tree with stage 2 for conflicted
// paths, and every stage as git ls-files -u lists it.
func TestSnapshotUnmerged(t *testing.T) {
	r := gittest.New(t)
	conflictedMerge(t, r)
	if !strings.Contains(r.Read("a.txt"), "<<<<<<<") {
		t.Fatalf("a.txt has no conflict markers:\n%s", r.Read("a.txt"))
	}
	s := snap(t, r.Dir) // checks invariant 1 and that the trees are complete

	// git write-tree refuses this index; git add -A on a copy of it
	// resolves every conflict to the file as it is.
	wantWorktree := addedTree(t, r.Dir)
	if s.Worktree.String() != wantWorktree {
		t.Errorf("worktree tree %s, git add -A stages %s:\n%s", s.Worktree, wantWorktree,
			cmp.Diff(lsTree(t, r.Dir, wantWorktree), lsTree(t, r.Dir, s.Worktree.String())))
	}
	marked, err := openWS(t, r.Dir).db.Lookup(s.Worktree, "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if h := strings.TrimSpace(r.Git("hash-object", "a.txt")); marked.Hash.String() != h {
		t.Errorf("a.txt recorded as %s, the file with markers hashes to %s", marked.Hash, h)
	}

	stages := lsFilesStages(t, r.Dir)
	// The index tree: stage 0 entries, and stage 2 of conflicted paths.
	var want []string
	for k, v := range stages {
		path, stage, _ := strings.Cut(k, " ")
		if stage == "0" || stage == "2" {
			mode, hash, _ := strings.Cut(v, " ")
			want = append(want, fmt.Sprintf("%s blob %s\t%s\n", mode, hash, path))
		}
	}
	sort.Slice(want, func(i, j int) bool {
		return strings.SplitN(want[i], "\t", 2)[1] < strings.SplitN(want[j], "\t", 2)[1]
	})
	if diff := cmp.Diff(strings.Join(want, ""), lsTree(t, r.Dir, s.IndexTree.String())); diff != "" {
		t.Errorf("index tree (-stage 0 and 2 +recorded):\n%s", diff)
	}

	if s.Unmerged == nil {
		t.Fatal("no unmerged record")
	}
	if s.Unmerged.Operation != record.OpMerge {
		t.Errorf("operation %q, want merge", s.Unmerged.Operation)
	}
	got := map[string]string{}
	kinds := map[string]string{}
	for _, p := range s.Unmerged.Paths {
		kinds[p.Path] = p.Conflict()
		for _, st := range p.Stages {
			got[fmt.Sprintf("%s %d", p.Path, st.Stage)] = st.Mode.String() + " " + st.Hash.String()
		}
	}
	for k := range stages {
		if strings.HasSuffix(k, " 0") {
			delete(stages, k)
		}
	}
	if diff := cmp.Diff(stages, got); diff != "" {
		t.Errorf("stages (-git ls-files -u +recorded):\n%s", diff)
	}
	wantKinds := map[string]string{"a.txt": "both modified", "dir/b.txt": "deleted by them", "new.txt": "both added"}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("conflict kinds (-want +got):\n%s", diff)
	}
	if err := s.Unmerged.Validate(); err != nil {
		t.Errorf("the record does not validate: %v", err)
	}

	// IndexTree agrees with the snapshot's.
	it, err := openWS(t, r.Dir).IndexTree(context.Background())
	if err != nil || it != s.IndexTree {
		t.Errorf("IndexTree = %s, %v; the snapshot has %s", it, err, s.IndexTree)
	}
}

// TestOperation: each operation git leaves in progress is named from the
// worktree's own git dir, and a linked worktree's rebase is its own.
func TestOperation(t *testing.T) {
	r := gittest.New(t)
	base(t, r)
	r.Git("checkout", "-q", "-b", "other")
	r.Write("a.txt", "other\n")
	r.Commit("other")
	r.Git("checkout", "-q", "main")
	r.Write("a.txt", "main\n")
	r.Commit("main")
	ctx := context.Background()
	op := func(dir string) record.Operation { return openWS(t, dir).Operation() }
	if got := op(r.Dir); got != record.OpNone {
		t.Fatalf("clean repository: operation %q", got)
	}
	steps := []struct {
		want        record.Operation
		start, stop []string
	}{
		{record.OpMerge, []string{"merge", "-q", "other"}, []string{"merge", "--abort"}},
		{record.OpCherryPick, []string{"cherry-pick", "other"}, []string{"cherry-pick", "--abort"}},
		{record.OpRevert, []string{"revert", "--no-edit", "HEAD~1"}, []string{"revert", "--abort"}},
		{record.OpRebase, []string{"rebase", "other"}, []string{"rebase", "--abort"}},
		{record.OpRebase, []string{"rebase", "--apply", "other"}, []string{"rebase", "--abort"}},
	}
	for _, s := range steps {
		if _, err := git.Run(ctx, r.Dir, s.start...); err == nil {
			t.Fatalf("git %v did not stop on a conflict", s.start)
		}
		if got := op(r.Dir); got != s.want {
			t.Errorf("during git %v: operation %q, want %q", s.start, got, s.want)
		}
		r.Git(s.stop...)
	}
	patch := r.Git("format-patch", "-1", "--stdout", "other")
	pf := filepath.Join(t.TempDir(), "p.patch")
	if err := os.WriteFile(pf, []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := git.Run(ctx, r.Dir, "am", pf); err == nil {
		t.Fatal("git am applied a conflicting patch")
	}
	if got := op(r.Dir); got != record.OpAm {
		t.Errorf("during git am: operation %q, want am", got)
	}
	r.Git("am", "--abort")
	r.Git("bisect", "start")
	if got := op(r.Dir); got != record.OpBisect {
		t.Errorf("during git bisect: operation %q, want bisect", got)
	}
	r.Git("bisect", "reset")

	// A rebase in a linked worktree is that worktree's, not the main one's.
	wt := filepath.Join(t.TempDir(), "linked")
	r.Git("worktree", "add", "-q", "-b", "side", wt, "main")
	if _, err := git.Run(ctx, wt, "rebase", "other"); err == nil {
		t.Fatal("rebase in the linked worktree did not conflict")
	}
	if got := op(wt); got != record.OpRebase {
		t.Errorf("linked worktree mid-rebase: operation %q", got)
	}
	if got := op(r.Dir); got != record.OpNone {
		t.Errorf("main worktree while the linked one rebases: operation %q", got)
	}
	s := snap(t, wt)
	if s.Unmerged == nil || s.Unmerged.Operation != record.OpRebase || len(s.Unmerged.Paths) != 1 || s.Unmerged.Paths[0].Path != "a.txt" {
		t.Errorf("linked worktree snapshot: unmerged %+v", s.Unmerged)
	}
	if s := snap(t, r.Dir); s.Unmerged != nil {
		t.Errorf("main worktree snapshot: unmerged %+v", s.Unmerged)
	}
}

// TestUnresolvable: after git add resolves conflicts, the index's
// resolve-undo record names exactly the paths git update-index --unresolve
// can bring back; before, it names none.
func TestUnresolvable(t *testing.T) {
	r := gittest.New(t)
	conflictedMerge(t, r)
	ctx := context.Background()
	got, err := openWS(t, r.Dir).Unresolvable(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("before git add: %v, %v", got, err)
	}
	r.Write("a.txt", "resolved\n")
	r.Write("new.txt", "resolved\n")
	r.Git("add", "a.txt", "new.txt")
	got, err = openWS(t, r.Dir).Unresolvable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]bool{"a.txt": true, "new.txt": true}, got); diff != "" {
		t.Errorf("unresolvable paths (-want +got):\n%s", diff)
	}
	// git agrees: both come back as conflicts, dir/b.txt still is one.
	r.Git("update-index", "--unresolve", "a.txt", "new.txt")
	out := r.Git("diff", "--name-only", "--diff-filter=U")
	if strings.TrimSpace(out) != "a.txt\ndir/b.txt\nnew.txt" {
		t.Errorf("after --unresolve, unmerged paths are %q", out)
	}
}

// TestSnapshotUnmergedOddNames: conflicted paths with a leading dash, a
// space and a newline are recorded in the work tree as git add -A stages
// them, and the unmerged record carries both (a newline is a name git
// allows and the records carry as it is).
func TestSnapshotUnmergedOddNames(t *testing.T) {
	r := gittest.New(t)
	base(t, r)
	names := []string{"-dash file.txt", "new\nline.txt"}
	for _, n := range names {
		r.Write(n, "base\n")
	}
	r.Git("add", "-A")
	r.Commit("odd names")
	r.Git("checkout", "-q", "-b", "other")
	for _, n := range names {
		r.Write(n, "other\n")
	}
	r.Git("add", "-A")
	r.Commit("other")
	r.Git("checkout", "-q", "main")
	for _, n := range names {
		r.Write(n, "main\n")
	}
	r.Git("add", "-A")
	r.Commit("main")
	if _, err := git.Run(context.Background(), r.Dir, "merge", "-q", "other"); err == nil {
		t.Fatal("merge did not conflict")
	}
	s := snap(t, r.Dir)
	if s.Unmerged == nil || len(s.Unmerged.Paths) != 2 || s.Unmerged.Paths[0].Path != names[0] || s.Unmerged.Paths[1].Path != names[1] {
		t.Fatalf("unmerged record %+v, want %q", s.Unmerged, names)
	}
	if err := s.Unmerged.Validate(); err != nil {
		t.Fatal(err)
	}
	db := openWS(t, r.Dir).db
	for _, n := range names {
		fs, err := db.Lookup(s.Worktree, n)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSpace(r.Git("hash-object", "--", n))
		if fs.Hash.String() != want {
			t.Errorf("%q recorded as %s, the file with markers hashes to %s", n, fs.Hash, want)
		}
	}
}

// TestSnapshotUnmergedGuessedLineEndings: in a conflict, git consults the
// path's stage 2 ("ours") for the line endings it guesses (text=auto): our
// side has CRLF, so git add keeps the file's CRLF, and so must the
// snapshot, which is compared with git add -A on a copy of the index.
func TestSnapshotUnmergedGuessedLineEndings(t *testing.T) {
	r := gittest.New(t)
	base(t, r)
	r.Write("c.c", "int x;\r\n")
	r.Commit("crlf, before any attribute")
	r.Git("checkout", "-q", "-b", "other")
	r.Write("c.c", "int other;\r\n")
	r.Commit("other")
	r.Git("checkout", "-q", "main")
	r.Write("c.c", "int main;\r\n")
	r.Write(".gitattributes", "* text=auto\n")
	r.Git("add", "-A")
	r.Commit("main")
	if _, err := git.Run(context.Background(), r.Dir, "merge", "-q", "other"); err == nil {
		t.Fatal("merge did not conflict")
	}
	if !strings.Contains(r.Read("c.c"), "<<<<<<<") || !strings.Contains(r.Read("c.c"), "\r\n") {
		t.Fatalf("c.c is not a CRLF file with conflict markers:\n%q", r.Read("c.c"))
	}
	s := snap(t, r.Dir)
	if want := addedTree(t, r.Dir); s.Worktree.String() != want {
		t.Errorf("worktree tree %s, git add -A stages %s:\n%s", s.Worktree, want,
			cmp.Diff(lsTree(t, r.Dir, want), lsTree(t, r.Dir, s.Worktree.String())))
	}
	got, err := openWS(t, r.Dir).db.Lookup(s.Worktree, "c.c")
	if err != nil {
		t.Fatal(err)
	}
	if raw := strings.TrimSpace(r.Git("hash-object", "--no-filters", "c.c")); got.Hash.String() != raw {
		t.Errorf("c.c recorded as %s, want its bytes as they are (%s): our side has CRLF", got.Hash, raw)
	}
}
