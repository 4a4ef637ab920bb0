package copilot_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/copilot"
	"github.com/gitguard/gitguard/agent/internal/agenttest"
	"github.com/gitguard/gitguard/record"
)

func read(r io.Reader) (*agent.Event, error) { return copilot.Read(r, agent.ReadOptions{}) }

const sid = "1b5ae597-7b57-4732-81ff-5ee0a72232c9"

// TestReplayRecordedSession replays the hook events Copilot CLI 1.0.102
// sent in a real session ('copilot -p' against the scripted model, with
// hooks under Claude Code's event names): the tool uses pair up in order,
// Read records nothing, the failed Edit (PostToolUseFailure) and the shell
// command exiting 3 (in its output only) are failed, SessionEnd finishes
// the run.
func TestReplayRecordedSession(t *testing.T) {
	f, err := os.Open("testdata/session-1.0.102.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := agenttest.New(t, map[string]string{"README.md": "# Demo\n\nStatus: draft\n", "VERSION": "v1\n", "main.go": "package main\n",
		"obsolete.txt": "x\n", "LICENSE": "MIT\n", "NOTICE": "n\n", "CHANGELOG": "- v1\n"})
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p copilot.Payload
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		if p.HookEventName == copilot.PostToolUse && p.ToolName == "Write" {
			e.Repo.Write("notes.md", "# Notes\n\nWritten by the agent.\n") // what the tool did
		}
		ev, res := e.Hook(read, sc.Text())
		if ev.Warning != "" || len(res.Warnings) != 0 {
			t.Errorf("%s: warnings %q %q", ev.Name, ev.Warning, res.Warnings)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	r := e.Run("cp-" + sid)
	if !r.Checkpoint.RunFinished {
		t.Error("run not finished at SessionEnd")
	}
	got := map[string]string{}
	for id, c := range r.Calls {
		got[string(id)] = c.Ledger.ToolName + " " + string(c.Ledger.Status)
	}
	p := "cp-" + sid[:8] + "-"
	want := map[string]string{
		p + "1": "Write succeeded", p + "2": "Edit succeeded", p + "3": "Bash succeeded", p + "4": "Bash succeeded",
		p + "5": "Bash succeeded", p + "6": "Edit failed", p + "7": "Bash failed",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if c := r.Calls[record.CallID(p+"7")]; c.Ledger.ExitCode == nil || *c.Ledger.ExitCode != 3 {
		t.Errorf("exit code of the shell command exiting 3: %v", c.Ledger.ExitCode)
	}
	e.CheckPatch(r.Calls[record.CallID(p+"1")], "notes.md", nil)
	e.CheckUserState()
}

func event(name string, fields map[string]any) string {
	m := map[string]any{"hook_event_name": name, "session_id": sid, "timestamp": "2026-12-04T10:56:36.318Z", "cwd": "@REPO@"}
	for k, v := range fields {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TestCopilotUnmatchedPre: a PreToolUse need not be followed by a
// PostToolUse (the tool was denied or interrupted). The next tool use of
// the same tool and input gets its own call, and SessionEnd finishes the
// open one as uncertain, with what it changed.
func TestCopilotUnmatchedPre(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	sh := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "echo b >> a.txt"}}
	_, r1 := e.Hook(read, event(copilot.PreToolUse, sh))
	e.Repo.Write("a.txt", "a\nb\n")
	_, r2 := e.Hook(read, event(copilot.PreToolUse, sh))
	e.Repo.Write("a.txt", "a\nb\nb\n")
	_, r3 := e.Hook(read, event(copilot.PostToolUse, sh))
	if r1.Call == r2.Call || r3.Call == "" {
		t.Fatalf("calls %q %q %q", r1.Call, r2.Call, r3.Call)
	}
	e.Hook(read, event(copilot.SessionEnd, map[string]any{"reason": "complete"}))
	r := e.Run("cp-" + sid)
	var statuses []string
	for _, id := range []record.CallID{r1.Call, r2.Call} {
		statuses = append(statuses, string(r.Calls[id].Ledger.Status))
	}
	// The post pairs with the oldest open pre: the first call succeeded,
	// the second was left open and is uncertain.
	if diff := cmp.Diff([]string{"succeeded", "uncertain"}, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if !r.Checkpoint.RunFinished {
		t.Error("SessionEnd did not finish the run")
	}
	e.CheckUserState()
}

// TestCopilotMCPWriteTool: a tool gitguard does not know (an MCP server's
// that writes a file) is a whole-workspace call; read-only tools record
// nothing and open no repository.
func TestCopilotMCPWriteTool(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	mcp := map[string]any{"tool_name": "filesystem-write_file", "tool_input": map[string]any{"path": "out/new.txt", "content": "new\n"}}
	_, r1 := e.Hook(read, event(copilot.PreToolUse, mcp))
	e.Repo.Write("out/new.txt", "new\n")
	mcp["tool_result"] = map[string]any{"result_type": "success", "text_result_for_llm": "Successfully wrote to out/new.txt"}
	_, r2 := e.Hook(read, event(copilot.PostToolUse, mcp))
	if r1.Call == "" || r1.Call != r2.Call {
		t.Fatalf("calls %q %q", r1.Call, r2.Call)
	}
	c := e.Call("cp-"+sid, r1.Call)
	if c.Ledger.ToolName != "filesystem-write_file" || c.Ledger.Status != record.StatusSucceeded || len(c.Ledger.Paths) != 0 {
		t.Errorf("MCP write: %q %s %v", c.Ledger.ToolName, c.Ledger.Status, c.Ledger.Paths)
	}
	e.CheckPatch(c, "out/new.txt", nil)
	for _, tool := range []string{"Read", "Grep", "Glob", "WebFetch", "view", "report_intent", "gitguard-undo"} {
		for _, ev := range []string{copilot.PreToolUse, copilot.PostToolUse} {
			e.HookReadOnly(read, event(ev, map[string]any{"tool_name": tool, "tool_input": map[string]any{"path": "@REPO@/a.txt"}}))
		}
	}
	// Copilot CLI's own camelCase payload names no event: refused, with a
	// hint at the hooks gitguard installs.
	if _, err := copilot.Read(strings.NewReader(`{"sessionId":"s","timestamp":1,"cwd":"/x","toolName":"bash","toolArgs":{}}`), agent.ReadOptions{}); !errors.Is(err, agent.ErrPayload) {
		t.Errorf("camelCase payload: %v", err)
	}
	e.CheckUserState()
}

func TestCopilotInit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ch, err := copilot.Init(agent.InitOptions{Command: "gitguard hook copilot", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version int `json:"version"`
		Hooks   map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(ch[0].After, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || doc.Hooks["PreToolUse"][0].Matcher != "*" || doc.Hooks["PreToolUse"][0].Hooks[0].Command != "gitguard hook copilot" ||
		len(doc.Hooks["SessionEnd"]) != 1 || doc.Hooks["SessionEnd"][0].Matcher != "" {
		t.Errorf("hooks file:\n%s", ch[0].After)
	}
	if err := ch[0].Write(); err != nil {
		t.Fatal(err)
	}
	again, err := copilot.Init(agent.InitOptions{Command: "gitguard hook copilot", Dir: dir})
	if err != nil || len(again[0].Added) != 0 {
		t.Errorf("second init added %v (%v)", again[0].Added, err)
	}
}
