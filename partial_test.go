package gitguard_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// A call reads and rewrites its own records only; every other call's
// records go into the new checkpoint as the very same git objects.
func TestCallCarriesOtherCallsUnread(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	f.call("c1", []string{"a.txt"}, func() { f.write("a.txt", "a1\n") })
	f.call("c2", nil, func() { f.write("b.txt", "b1\n") })
	ref := "refs/agent-checkpoints/runs/" + string(f.run)
	before := f.repo.Git("ls-tree", ref+":calls")

	start, err := f.g.CallStart(f.ctx, f.run, gitguard.CallOptions{CallID: "c3", Tool: "edit", Paths: []string{"a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(start.Calls) != 1 || start.Calls["c3"] == nil {
		t.Errorf("call start returned calls %v, want c3 only", keys(start.Calls))
	}
	f.write("a.txt", "a2\n")
	if _, err := f.g.CallFinish(f.ctx, f.run, "c3", gitguard.FinishOptions{}); err != nil {
		t.Fatal(err)
	}

	after := strings.Split(strings.TrimSpace(f.repo.Git("ls-tree", ref+":calls")), "\n")
	for _, line := range strings.Split(strings.TrimSpace(before), "\n") {
		if !slices.Contains(after, line) {
			t.Errorf("calls tree lost or rewrote %q:\n%s", line, strings.Join(after, "\n"))
		}
	}
	if len(after) != 3 {
		t.Errorf("calls tree has %d entries, want 3:\n%s", len(after), strings.Join(after, "\n"))
	}
	if out := f.repo.Git("fsck", "--no-dangling"); strings.Contains(out, "error") {
		t.Errorf("git fsck: %s", out)
	}
	run, err := gitguard.StoreOf(f.g).ReadRun(f.ctx, f.run)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []record.CallID{"c1", "c2", "c3"} {
		c := run.Calls[id]
		if c == nil || c.Ledger.Status != record.StatusSucceeded || len(c.Patches) != 1 {
			t.Errorf("call %s after the partial commits: %+v", id, c)
		}
	}
	f.checkInvariant1()
}

// A mutation given a partial tip cannot replace a call it was not given.
func TestCommitCallsRefusesUnreadCall(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"})
	f.call("c1", []string{"a.txt"}, func() { f.write("a.txt", "a1\n") })
	tip := f.repo.Git("rev-parse", "refs/agent-checkpoints/runs/"+string(f.run))

	_, err := gitguard.StoreOf(f.g).CommitCalls(f.ctx, f.run, []record.CallID{"other"}, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		tip.Calls["c1"] = &patchstore.Call{Call: record.Call{Ledger: record.LedgerEntry{CallID: "c1", ToolName: "x", Status: record.StatusPlanned}}}
		return &record.Checkpoint{Kind: record.KindLedger}, nil
	})
	if err == nil || !strings.Contains(err.Error(), "not read") {
		t.Fatalf("CommitCalls replacing an unread call: err = %v, want a refusal", err)
	}
	if now := f.repo.Git("rev-parse", "refs/agent-checkpoints/runs/"+string(f.run)); now != tip {
		t.Errorf("run ref moved from %s to %s", tip, now)
	}
	f.checkInvariant1()
}

func keys[K ~string, V any](m map[K]V) []K {
	var out []K
	for k := range m {
		out = append(out, k)
	}
	return out
}
