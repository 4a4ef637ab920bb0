package codex_test

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/codex"
	"github.com/gitguard/gitguard/record"
)

// TestReplayRecordedSession replays the hook events Codex 0.171 sent in a
// real session (recorded from 'codex exec' with the hooks 'gitguard init
// codex --write' installs): every event is known, every tool use becomes
// its call, the apply_patch that did not apply (no PostToolUse) is closed
// at Stop, and Stop finishes the run.
func TestReplayRecordedSession(t *testing.T) {
	f, err := os.Open("testdata/session-0.171.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := newScenarioRepo(t)
	var run string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		ev, res := e.Hook(read, sc.Text())
		if ev.Warning != "" {
			t.Errorf("%s: warning %q", ev.Name, ev.Warning)
		}
		if ev.Name == codex.Stop && len(res.Warnings) != 1 {
			t.Errorf("Stop warnings %q, want one for the apply_patch without PostToolUse", res.Warnings)
		}
		run = string(ev.RunID)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	r := e.Run(run)
	if !r.Checkpoint.RunFinished {
		t.Error("run not finished at Stop")
	}
	got := map[string]string{}
	for id, c := range r.Calls {
		got[string(id)] = c.Ledger.ToolName + " " + string(c.Ledger.Status)
	}
	want := map[string]string{
		"call_e2e_00": "apply_patch succeeded", "call_e2e_01": "apply_patch succeeded", "call_e2e_02": "Bash succeeded",
		"call_e2e_03": "Bash succeeded", "call_e2e_04": "apply_patch succeeded",
		"call_e2e_05": "apply_patch " + string(record.StatusUncertain),
		// Codex sends an empty tool_response for Bash: exit 3 cannot be seen.
		"call_e2e_06": "Bash succeeded",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"LICENSE", "docs/LICENSE.txt", "NOTICE"}, r.Calls["call_e2e_04"].Ledger.Paths); diff != "" {
		t.Errorf("move and delete scope (-want +got):\n%s", diff)
	}
	e.CheckUserState()
}

func TestApplyPatchExitCode(t *testing.T) {
	t.Parallel()
	post := func(resp string) string {
		return `{"session_id":"s","cwd":"/x","hook_event_name":"PostToolUse","tool_name":"apply_patch","tool_use_id":"c","tool_input":{"command":"*** Add File: a\n+a\n"},"tool_response":` + resp + `}`
	}
	ev, err := codex.Read(strings.NewReader(post(`"Exit code: 1\nWall time: 0 seconds\nOutput:\nverification failed: no such line\n"`)), agent.ReadOptions{})
	if err != nil || ev.Finish.Status != record.StatusFailed || *ev.Finish.ExitCode != 1 || !strings.Contains(ev.Finish.Result, "verification failed") {
		t.Errorf("exit 1: %+v %v", ev.Finish, err)
	}
	ev, err = codex.Read(strings.NewReader(post(`"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n"`)), agent.ReadOptions{})
	if err != nil || ev.Finish.Status != record.StatusSucceeded {
		t.Errorf("exit 0: %+v %v", ev.Finish, err)
	}
}
