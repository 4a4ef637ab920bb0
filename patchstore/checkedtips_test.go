package patchstore

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// A run's tip is checked once however often it is read (a call's start
// reads its run to decide, then again to commit on it); a new tip is
// checked anew, and a tip that fails its check fails every read.
func TestTipCheckedOnce(t *testing.T) {
	r := gittest.New(t)
	r.Write("f", "x\n")
	r.Commit("init")
	ctx := context.Background()
	open := func() *Store {
		s, err := Open(ctx, r.Dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	s := open()
	commit := func(run record.RunID, i int) *Run {
		id := record.CallID(fmt.Sprintf("call%d", i))
		next, err := s.CommitCalls(ctx, run, []record.CallID{id}, func(tip *Run) (*record.Checkpoint, error) {
			tip.Calls[id] = &Call{Call: record.Call{Ledger: record.LedgerEntry{Version: record.FormatVersion, CallID: id, ToolName: "edit",
				Status: record.StatusPlanned}}}
			return &record.Checkpoint{Kind: record.KindLedger, CallID: id}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return next
	}
	commit("a", 1)
	tip := commit("a", 2)

	s = open() // remembers nothing yet
	for range 3 {
		if _, err := s.ReadRunCalls(ctx, "a"); err != nil {
			t.Fatal(err)
		}
	}
	if s.checked.runs != 1 {
		t.Fatalf("tip checked %d times over three reads, want once", s.checked.runs)
	}
	commit("a", 3)
	if _, err := s.ReadRun(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if s.checked.runs != 2 {
		t.Fatalf("%d checks after a new tip was read, want 2", s.checked.runs)
	}

	// The tip's tree in a commit of its own without parents: the records
	// read, the commit's parents contradict them. Every read refuses it.
	forged := r.Git("commit-tree", "-m", "forged", tip.Commit.String()+"^{tree}")
	r.Git("update-ref", gitrefs.RunRef("a"), forged)
	for range 2 {
		if _, err := s.ReadRun(ctx, "a"); err == nil || !strings.Contains(err.Error(), "parent") {
			t.Fatalf("read of a tip whose commit has no parents: %v, want it refused", err)
		}
	}
}
