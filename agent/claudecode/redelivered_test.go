package claudecode_test

import (
	"strings"
	"testing"

	"github.com/gitguard/gitguard/agent/claudecode"
	"github.com/gitguard/gitguard/agent/internal/agenttest"
	"github.com/gitguard/gitguard/record"
)

// Events the agent sends again, late or after its session ended: the hook
// reads the run at most once per event, and each case still comes out as
// the ledger should say.
func TestClaudeCodeRedeliveredEvents(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "one\n"})
	run := "cc-s1"
	edit := map[string]any{"file_path": "@REPO@/a.txt", "old_string": "one", "new_string": "two"}

	// The same PreToolUse twice: the first capture stands, no warning.
	e.Hook(read, ev(claudecode.PreToolUse, "Edit", "t1", edit, nil))
	e.Repo.Write("a.txt", "two\n")
	if _, r := e.Hook(read, ev(claudecode.PreToolUse, "Edit", "t1", edit, nil)); len(r.Warnings) != 0 {
		t.Errorf("repeated PreToolUse warned: %v", r.Warnings)
	}
	if c := e.Call(run, "t1"); c.Ledger.Status != record.StatusStarted {
		t.Fatalf("after a repeated PreToolUse the call is %s, want started", c.Ledger.Status)
	}
	e.Hook(read, ev(claudecode.PostToolUse, "Edit", "t1", edit, nil))
	c := e.Call(run, "t1")
	if c.Ledger.Status != record.StatusSucceeded {
		t.Errorf("call t1 is %s, want succeeded", c.Ledger.Status)
	}
	e.CheckPatch(c, "a.txt", agenttest.S("one\n")) // the first capture's before state

	// The same PostToolUse again: a warning, nothing recorded.
	before := e.Run(run).Checkpoint.Seq
	_, r := e.Hook(read, ev(claudecode.PostToolUse, "Edit", "t1", edit, nil))
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "call t1 is already succeeded") {
		t.Errorf("repeated PostToolUse: warnings %v", r.Warnings)
	}
	if seq := e.Run(run).Checkpoint.Seq; seq != before {
		t.Errorf("a repeated PostToolUse recorded checkpoint %d", seq)
	}

	// A PostToolUse whose PreToolUse never came: in the ledger, no patch.
	e.Repo.Write("a.txt", "three\n")
	_, r = e.Hook(read, ev(claudecode.PostToolUse, "Edit", "t2", edit, nil))
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "start was never recorded") {
		t.Errorf("late PostToolUse: warnings %v", r.Warnings)
	}
	if c := e.Call(run, "t2"); c.Ledger.Status != record.StatusSucceeded || len(c.Patches) != 0 ||
		!strings.Contains(c.Ledger.Result, "before state not captured (no PreToolUse seen)") {
		t.Errorf("late PostToolUse: %s, %d patches, result %q", c.Ledger.Status, len(c.Patches), c.Ledger.Result)
	}

	// The session ends, then a later turn uses a tool: its run continues
	// and is the active run again.
	e.Hook(read, ev(claudecode.SessionEnd, "", "", nil, map[string]any{"reason": "other"}))
	if !e.Run(run).Checkpoint.RunFinished {
		t.Fatal("SessionEnd left the run unfinished")
	}
	if active, err := e.Guard().ActiveRun(); err != nil || active != "" {
		t.Fatalf("after SessionEnd the active run is %q (%v)", active, err)
	}
	e.Hook(read, ev(claudecode.PreToolUse, "Edit", "t3", edit, nil))
	e.Repo.Write("a.txt", "four\n")
	e.Hook(read, ev(claudecode.PostToolUse, "Edit", "t3", edit, nil))
	if active, err := e.Guard().ActiveRun(); err != nil || active != record.RunID(run) {
		t.Errorf("a later turn left the active run %q (%v), want %s", active, err, run)
	}
	c = e.Call(run, "t3")
	if c.Ledger.Status != record.StatusSucceeded {
		t.Errorf("call t3 is %s, want succeeded", c.Ledger.Status)
	}
	e.CheckPatch(c, "a.txt", agenttest.S("three\n"))
	if fsck := e.Repo.Git("fsck", "--no-progress"); strings.Contains(fsck, "error") || strings.Contains(fsck, "missing") {
		t.Errorf("git fsck: %s", fsck)
	}
	e.CheckUserState()
}
