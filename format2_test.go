package gitguard_test

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
)

// TestUnorderedIndexRun reads a run recorded before the run index kept the
// calls by finish, trimmed each path's postings and left the ledger entries
// to the calls' own records
// (testdata/unordered-index-run.tar.gz: c1..c6 each append to a.txt, c7
// edits b.txt and dir/c.txt, c8 (whole workspace) is undone by undo-018,
// c9 is still started). Readers fall back to the full postings and agree
// with a full read; the next checkpoint builds the index anew, with the
// order part, trimmed postings and no ledger copy, and git fsck --strict
// accepts it.
func TestUnorderedIndexRun(t *testing.T) {
	dir, f, userBefore := openRecordedRun(t, "testdata/unordered-index-run.tar.gz")
	ctx, g := f.ctx, f.g
	st := gitguard.StoreOf(g)
	old, err := st.ReadRun(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if len(old.Calls) != 10 || old.Calls["c8"].Ledger.UndoneBy != "undo-018" {
		t.Fatalf("fixture: %d calls, want 10 with c8 undone by undo-018", len(old.Calls))
	}
	if names := gitOut(t, dir, "ls-tree", "--name-only", "refs/agent-checkpoints/runs/old:runindex"); strings.Contains(names, "order") {
		t.Fatalf("fixture already has the order part:\n%s", names)
	}
	if n := storedPostings(t, dir, "a.txt"); n != 6 {
		t.Fatalf("fixture lists %d postings of a.txt, want all 6", n)
	}
	compareIndex(t, f, 0)
	res, err := g.Undo(ctx, "old", gitguard.UndoOptions{DryRun: true})
	if err != nil || len(res.Undone) != 1 || res.Undone[0] != "c7" {
		t.Fatalf("plain undo on the fixture picks %v (%v), want c7", res, err)
	}

	// The next checkpoint builds the index anew.
	if _, err := g.CallFinish(ctx, "old", "c9", gitguard.FinishOptions{}); err != nil {
		t.Fatal(err)
	}
	if names := gitOut(t, dir, "ls-tree", "--name-only", "refs/agent-checkpoints/runs/old:runindex"); !strings.Contains(names, "order") || strings.Contains(names, "ledger") {
		t.Fatalf("index after a new checkpoint: want the order part and no ledger copy:\n%s", names)
	}
	if n := storedPostings(t, dir, "a.txt"); n != 1 {
		t.Errorf("a.txt keeps %d postings after the rebuild, want the newest patch only", n)
	}
	compareIndex(t, f, 1)
	tip, err := st.ReadRun(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.VerifyRun(ctx, "old", tip.Commit); err != nil {
		t.Errorf("VerifyRun after the rebuild: %v", err)
	}
	checkRecordedRun(t, dir, userBefore)
}

// storedPostings counts the postings the run index of run old's tip holds
// for path, read with git.
func storedPostings(t *testing.T, dir, path string) int {
	t.Helper()
	sum := sha1.Sum([]byte(path))
	h := hex.EncodeToString(sum[:1])
	data := gitOut(t, dir, "cat-file", "blob", "refs/agent-checkpoints/runs/old:runindex/paths/"+h[:1]+"/"+h[1:2])
	var rec struct {
		Paths []struct {
			Path  string            `json:"path"`
			Calls []json.RawMessage `json:"calls"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(data), &rec); err != nil {
		t.Fatal(err)
	}
	for _, p := range rec.Paths {
		if p.Path == path {
			return len(p.Calls)
		}
	}
	return 0
}
