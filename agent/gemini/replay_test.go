package gemini_test

import (
	"bufio"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitguard/gitguard/agent/internal/agenttest"
	"github.com/gitguard/gitguard/record"
)

// TestReplayRecordedSession replays the hook events Gemini CLI 0.61 sent in
// a real session (recorded from 'gemini -p' with the hooks 'gitguard init
// gemini --write' installs): every event is known, BeforeTool and AfterTool
// pair into one call per tool use, the failed replace and the shell command
// that exited 3 are failed, and SessionEnd finishes the run.
func TestReplayRecordedSession(t *testing.T) {
	f, err := os.Open("testdata/session-0.61.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := agenttest.New(t, map[string]string{"README.md": "# Demo\n", "VERSION": "v1\n", "LICENSE": "MIT\n",
		"NOTICE": "n\n", "main.go": "package main\n", "CHANGELOG": "- v1\n"})
	var run, prefix string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		ev, res := e.Hook(read, sc.Text())
		if ev.Warning != "" || len(res.Warnings) != 0 {
			t.Errorf("%s: warning %q %q", ev.Name, ev.Warning, res.Warnings)
		}
		run, prefix = string(ev.RunID), ev.PairPrefix
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	r := e.Run(run)
	if !r.Checkpoint.RunFinished {
		t.Error("run not finished at SessionEnd")
	}
	got := map[string]string{}
	for id, c := range r.Calls {
		got[string(id)] = c.Ledger.ToolName + " " + string(c.Ledger.Status)
	}
	want := map[string]string{
		prefix + "1": "write_file succeeded", prefix + "2": "replace succeeded", prefix + "3": "run_shell_command succeeded",
		prefix + "4": "run_shell_command succeeded", prefix + "5": "run_shell_command succeeded",
		prefix + "6": "replace " + string(record.StatusFailed), prefix + "7": "run_shell_command " + string(record.StatusFailed),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if c := r.Calls[record.CallID(prefix+"7")]; c == nil || c.Ledger.ExitCode == nil || *c.Ledger.ExitCode != 3 {
		t.Errorf("exit code of the failing shell command not recorded")
	}
	e.CheckUserState()
}
