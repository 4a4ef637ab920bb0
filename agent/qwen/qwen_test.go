package qwen_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/internal/agenttest"
	"github.com/gitguard/gitguard/agent/qwen"
	"github.com/gitguard/gitguard/record"
)

func read(r io.Reader) (*agent.Event, error) { return qwen.Read(r, agent.ReadOptions{}) }

// TestReplayRecordedSession replays the hook events Qwen Code 0.24.4 sent
// in a real session ('qwen -p' against the scripted model, with hooks for
// every event): each tool use is its call, named after tool_call_id (the
// model's id; tool_use_id is made up per event pair); read_file records
// nothing; a sed -i on a file not read first is refused by Qwen Code
// (PostToolUseFailure), so is the edit whose old_string is missing and the
// shell command exiting 3; Stop finishes the run.
func TestReplayRecordedSession(t *testing.T) {
	f, err := os.Open("testdata/session-0.24.4.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := agenttest.New(t, map[string]string{"README.md": "# Demo\n\nStatus: draft\n", "VERSION": "v1\n", "main.go": "package main\n",
		"obsolete.txt": "x\n", "LICENSE": "MIT\n", "NOTICE": "n\n", "CHANGELOG": "- v1\n"})
	var run string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p qwen.Payload
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		// What the tool did, between its events.
		if p.HookEventName == qwen.PostToolUse || p.HookEventName == qwen.PostToolUseFailure {
			switch p.ToolCallID {
			case "toolu_e2e_02":
				e.Repo.Write("notes.md", "# Notes\n\nWritten by the agent.\n")
			case "toolu_e2e_03":
				e.Repo.Write("README.md", "# Demo\n\nStatus: ready\n")
			case "toolu_e2e_08":
				e.Repo.Write("CHANGELOG", "- v1\n- v2: broken build\n")
			}
		}
		ev, res := e.Hook(read, sc.Text())
		if ev.Warning != "" || len(res.Warnings) != 0 {
			t.Errorf("%s: warnings %q %q", ev.Name, ev.Warning, res.Warnings)
		}
		if ev.TurnEnd != (ev.Name == qwen.Stop) {
			t.Errorf("%s: TurnEnd %v; only Stop, a turn's end, keeps the watch daemon", ev.Name, ev.TurnEnd)
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
		"toolu_e2e_02": "write_file succeeded", "toolu_e2e_03": "edit succeeded",
		"toolu_e2e_04": "run_shell_command failed", "toolu_e2e_05": "run_shell_command succeeded",
		"toolu_e2e_06": "run_shell_command succeeded", "toolu_e2e_07": "edit failed", "toolu_e2e_08": "run_shell_command failed",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	e.CheckPatch(r.Calls["toolu_e2e_02"], "notes.md", nil)
	e.CheckPatch(r.Calls["toolu_e2e_08"], "CHANGELOG", agenttest.S("- v1\n"))
	e.CheckUserState()
}

// TestQwenMCPWriteTool: a tool gitguard does not know (an MCP server's
// that writes a file) is a whole-workspace call; read-only tools record
// nothing and open no repository; a shell command's exit code in its
// output fails the call.
func TestQwenMCPWriteTool(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	ev := func(event, tool, id string, input, extra map[string]any) string {
		m := map[string]any{"session_id": "s1", "cwd": "@REPO@", "hook_event_name": event, "tool_name": tool, "tool_input": input,
			"tool_use_id": "toolu_made_up_" + event, "tool_call_id": id}
		for k, v := range extra {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	in := map[string]any{"path": "out/new.txt", "content": "new\n"}
	e.Hook(read, ev(qwen.PreToolUse, "mcp__filesystem__write_file", "call_m", in, nil))
	e.Repo.Write("out/new.txt", "new\n")
	e.Hook(read, ev(qwen.PostToolUse, "mcp__filesystem__write_file", "call_m", in,
		map[string]any{"tool_response": map[string]any{"llmContent": "Successfully wrote to out/new.txt", "returnDisplay": ""}}))
	c := e.Call("qw-s1", "call_m")
	if c.Ledger.ToolName != "mcp__filesystem__write_file" || c.Ledger.Status != record.StatusSucceeded || len(c.Ledger.Paths) != 0 {
		t.Errorf("MCP write: %q %s %v", c.Ledger.ToolName, c.Ledger.Status, c.Ledger.Paths)
	}
	e.CheckPatch(c, "out/new.txt", nil)

	sh := map[string]any{"command": "false", "is_background": false}
	e.Hook(read, ev(qwen.PreToolUse, qwen.ShellTool, "call_s", sh, nil))
	e.Hook(read, ev(qwen.PostToolUse, qwen.ShellTool, "call_s", sh, map[string]any{"tool_response": map[string]any{
		"llmContent": "Command: false\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1\nSignal: (none)\nProcess Group PGID: (none)", "returnDisplay": ""}}))
	if s := e.Call("qw-s1", "call_s"); s.Ledger.Status != record.StatusFailed || s.Ledger.ExitCode == nil || *s.Ledger.ExitCode != 1 {
		t.Errorf("exit 1: %s %v", s.Ledger.Status, s.Ledger.ExitCode)
	}
	for _, tool := range []string{"read_file", "grep_search", "glob", "list_directory", "web_fetch", "todo_write", "tool_search"} {
		for _, event := range []string{qwen.PreToolUse, qwen.PostToolUse} {
			e.HookReadOnly(read, ev(event, tool, "call_r", map[string]any{"file_path": "@REPO@/a.txt"}, nil))
		}
	}
	if x, _ := e.Hook(read, `{"session_id":"s1","cwd":"@REPO@","hook_event_name":"SomethingNew"}`); x.Warning == "" {
		t.Error("unknown event not warned")
	}
	if _, err := qwen.Read(strings.NewReader(`{"session_id":"s1"}`), agent.ReadOptions{}); err == nil {
		t.Error("an event without hook_event_name was read")
	}
	e.CheckUserState()
}
