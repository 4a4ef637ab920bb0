package patchstore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// packsIn counts the pack files of r's object database.
func packsIn(t *testing.T, r *gittest.Repo) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "*.pack"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

func parseHash(t *testing.T, s string) record.Hash {
	t.Helper()
	h, err := record.ParseHash(s)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// startMutation is a run's first checkpoint as a test records it.
func startMutation(calls *int) Mutation {
	return func(*Run) (*record.Checkpoint, error) {
		*calls++
		return &record.Checkpoint{Kind: record.KindRunStart, Label: "run starts"}, nil
	}
}

// callStartMutation starts call id.
func callStartMutation(id record.CallID) Mutation {
	return func(tip *Run) (*record.Checkpoint, error) {
		tip.Calls[id] = &Call{Call: record.Call{Ledger: record.LedgerEntry{Version: record.FormatVersion, CallID: id,
			ToolName: "edit", Status: record.StatusStarted, Paths: []string{"a.txt"}}}}
		return &record.Checkpoint{Kind: record.KindCallStart, CallID: id}, nil
	}
}

// TestCommitStartingWritesBothInOneUpdate records a call's start on a run
// not recorded yet with CommitAwaitedCallsStarting: the run gets the same
// two checkpoints, byte for byte (the same commit ids), as a run start
// and a call start committed one after the other, but in one pack and
// with one move of its ref.
func TestCommitStartingWritesBothInOneUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ref := gitrefs.RunRef("run1")

	// One after the other, as a run start then a call start were recorded.
	r1, s1 := storeRepo(t)
	packs1 := packsIn(t, r1)
	n := 0
	if _, err := s1.CommitCalls(ctx, "run1", nil, startMutation(&n)); err != nil {
		t.Fatal(err)
	}
	want, err := s1.CommitAwaitedCalls(ctx, "run1", []record.CallID{"c1"}, callStartMutation("c1"))
	if err != nil {
		t.Fatal(err)
	}
	if got := packsIn(t, r1) - packs1; got != 2 {
		t.Fatalf("one after the other: %d new packs, want 2", got)
	}

	// In one.
	r2, s2 := storeRepo(t)
	packs2 := packsIn(t, r2)
	n = 0
	got, err := s2.CommitAwaitedCallsStarting(ctx, "run1", []record.CallID{"c1"}, startMutation(&n), callStartMutation("c1"))
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("start called %d times, want once", n)
	}
	if got.Commit != want.Commit {
		t.Errorf("run ref at %s, want %s: the same checkpoints as recorded one after the other", got.Commit, want.Commit)
	}
	if c := refsOf(t, r2)[ref]; c != got.Commit.String() {
		t.Errorf("git for-each-ref: run ref at %s, want %s", c, got.Commit)
	}
	chain := strings.Fields(r2.Git("rev-list", "--first-parent", ref))
	if len(chain) != 2 {
		t.Fatalf("git rev-list: %v, want the run start and the call start", chain)
	}
	var first, second record.Checkpoint
	catJSON(t, r2, parseHash(t, chain[1]), "checkpoint.json", &first)
	catJSON(t, r2, parseHash(t, chain[0]), "checkpoint.json", &second)
	if first.Kind != record.KindRunStart || first.Seq != 1 || second.Kind != record.KindCallStart || second.Seq != 2 ||
		second.Prev.String() != chain[1] {
		t.Errorf("checkpoints %s (seq %d) then %s (seq %d, prev %s), want run-start 1 then call-start 2 on it",
			first.Kind, first.Seq, second.Kind, second.Seq, second.Prev)
	}
	if got := packsIn(t, r2) - packs2; got != 1 {
		t.Errorf("%d new packs, want 1: both checkpoints in one", got)
	}
	run, err := openStore(t, r2.Dir).ReadRun(ctx, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if c := run.Calls["c1"]; c == nil || c.Ledger.Status != record.StatusStarted {
		t.Errorf("call c1 read back as %+v, want started", c)
	}

	// A run recorded already gets the call's checkpoint alone.
	n = 0
	next, err := s2.CommitAwaitedCallsStarting(ctx, "run1", []record.CallID{"c2"}, startMutation(&n), callStartMutation("c2"))
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 || next.Checkpoint.Seq != 3 || next.Checkpoint.Kind != record.KindCallStart {
		t.Errorf("on a recorded run: start called %d times, tip %s seq %d; want none and call-start 3", n, next.Checkpoint.Kind, next.Checkpoint.Seq)
	}
	r2.Git("fsck", "--strict", "--no-progress", "--no-dangling")
}
