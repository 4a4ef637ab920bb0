package claudecode_test

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/claudecode"
	"github.com/gitguard/gitguard/agent/internal/agenttest"
	"github.com/gitguard/gitguard/record"
)

func read(r io.Reader) (*agent.Event, error) { return claudecode.Read(r, agent.ReadOptions{}) }

func ev(event, tool, id string, input map[string]any, extra map[string]any) string {
	m := map[string]any{"session_id": "s1", "transcript_path": "/t/s1.jsonl", "cwd": "@REPO@", "permission_mode": "default",
		"hook_event_name": event}
	if tool != "" {
		m["tool_name"], m["tool_input"] = tool, input
	}
	if id != "" {
		m["tool_use_id"] = id
	}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TestClaudeCodeMCPWriteTool: a tool gitguard does not know (an MCP
// server's that writes a file) is a whole-workspace call; read-only tools
// record nothing and open no repository.
func TestClaudeCodeMCPWriteTool(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	// As Claude Code 2.1 sends it for the filesystem MCP server's write_file.
	in := map[string]any{"path": "@REPO@/out/new.txt", "content": "new\n"}
	e.Hook(read, ev(claudecode.PreToolUse, "mcp__filesystem__write_file", "toolu_mcp1", in, nil))
	e.Repo.Write("out/new.txt", "new\n")
	e.Hook(read, ev(claudecode.PostToolUse, "mcp__filesystem__write_file", "toolu_mcp1", in,
		map[string]any{"tool_response": []any{map[string]any{"type": "text", "text": "Successfully wrote to out/new.txt"}}}))
	c := e.Call("cc-s1", "toolu_mcp1")
	if c.Ledger.ToolName != "mcp__filesystem__write_file" || c.Ledger.Status != record.StatusSucceeded {
		t.Errorf("MCP write: tool %q status %s", c.Ledger.ToolName, c.Ledger.Status)
	}
	e.CheckPatch(c, "out/new.txt", nil)
	if !strings.Contains(c.Ledger.Input, "out/new.txt") {
		t.Errorf("MCP write input %q does not name the file", c.Ledger.Input)
	}
	for _, tool := range []string{"Read", "Grep", "Glob", "LS", "WebFetch", "TodoWrite", "mcp__gitguard__undo"} {
		for _, event := range []string{claudecode.PreToolUse, claudecode.PostToolUse} {
			e.HookReadOnly(read, ev(event, tool, "toolu_ro", map[string]any{"file_path": "@REPO@/a.txt"}, nil))
		}
	}
	e.CheckUserState()
}

func TestClaudeCodeTools(t *testing.T) {
	e := agenttest.New(t, map[string]string{"nb.ipynb": "{}\n", "a.go": "package a\n"})
	run := "cc-s1"
	// Read-only tools: nothing recorded, no warning, no repository opened.
	if x, _ := e.Hook(read, ev(claudecode.PreToolUse, "Grep", "t0", map[string]any{"pattern": "x"}, nil)); x.Kind != agent.Ignore || x.Warning != "" {
		t.Errorf("Grep: %+v", x)
	}
	nb := map[string]any{"notebook_path": "@REPO@/nb.ipynb", "new_source": "x"}
	e.Hook(read, ev(claudecode.PreToolUse, "NotebookEdit", "t1", nb, nil))
	e.Repo.Write("nb.ipynb", "{\"cells\":[]}\n")
	e.Hook(read, ev(claudecode.PostToolUse, "NotebookEdit", "t1", nb, map[string]any{"tool_response": map[string]any{"success": true}}))
	c := e.Call(run, "t1")
	if diff := cmp.Diff([]string{"nb.ipynb"}, c.Ledger.Paths); diff != "" {
		t.Errorf("NotebookEdit scope (-want +got):\n%s", diff)
	}
	e.CheckPatch(c, "nb.ipynb", agenttest.S("{}\n"))

	// MultiEdit interrupted by the user: failed, with its change recorded.
	me := map[string]any{"file_path": "a.go", "edits": []any{map[string]any{"old_string": "a", "new_string": "b"}}}
	e.Hook(read, ev(claudecode.PreToolUse, "MultiEdit", "t2", me, nil))
	e.Repo.Write("a.go", "package b\n")
	e.Hook(read, ev(claudecode.PostToolUseFailure, "MultiEdit", "t2", me, map[string]any{"error": "stopped", "is_interrupt": true}))
	if m := e.Call(run, "t2"); m.Ledger.Status != record.StatusFailed || m.Ledger.Result != "interrupted by the user stopped" {
		t.Errorf("MultiEdit: %s %q", m.Ledger.Status, m.Ledger.Result)
	}

	// No tool_use_id: ids derived from session, tool and input; -2 for the same input again.
	bash := map[string]any{"command": "echo x >> log"}
	var ids []string
	for i := 0; i < 2; i++ {
		_, r := e.Hook(read, ev(claudecode.PreToolUse, "Bash", "", bash, nil))
		e.Repo.Write("log", strings.Repeat("x\n", i+1))
		_, r2 := e.Hook(read, ev(claudecode.PostToolUse, "Bash", "", bash, nil))
		if r.Call != r2.Call {
			t.Errorf("derived ids differ across the pair: %s %s", r.Call, r2.Call)
		}
		ids = append(ids, string(r.Call))
	}
	if !strings.HasPrefix(ids[0], "cc-") || ids[1] != ids[0]+"-2" {
		t.Errorf("derived ids %v", ids)
	}

	// Unknown events warn; known quiet events do not.
	for _, tc := range []struct {
		p    string
		warn bool
	}{
		{ev("FutureEvent", "", "", nil, nil), true},
		{ev("UserPromptSubmit", "", "", nil, nil), false},
		{ev("Stop", "", "", nil, nil), false},
	} {
		if x, _ := e.Hook(read, tc.p); (x.Warning != "") != tc.warn {
			t.Errorf("%s: warning %q", tc.p, x.Warning)
		}
	}
	if _, err := claudecode.Read(strings.NewReader(`{"session_id":"s"}`), agent.ReadOptions{}); !errors.Is(err, agent.ErrPayload) ||
		err.Error() != "bad Claude Code hook event: no hook_event_name" {
		t.Errorf("no event name: %v", err)
	}
	e.CheckUserState()
}

// TestClaudeCodeClosingEvents: UserPromptSubmit and Stop are later events
// of the session, which close the calls it left started; SessionStart
// closes those and the other Claude Code sessions' too. None of them is a
// tool use, and none warns.
func TestClaudeCodeClosingEvents(t *testing.T) {
	for _, tc := range []struct {
		event       string
		kind        agent.Kind
		closeOthers string
	}{
		{claudecode.UserPromptSubmit, agent.SessionEvent, ""},
		{claudecode.Stop, agent.SessionEvent, ""},
		{claudecode.SessionStart, agent.SessionStart, claudecode.RunPrefix},
	} {
		got, err := read(strings.NewReader(ev(tc.event, "", "", nil, map[string]any{"prompt": "go on", "source": "startup"})))
		if err != nil {
			t.Fatalf("%s: %v", tc.event, err)
		}
		if got.Kind != tc.kind || got.CloseOthers != tc.closeOthers || got.RunID != "cc-s1" || got.Warning != "" || got.Tool != "" {
			t.Errorf("%s: kind %d, close others %q, run %s, warning %q, tool %q; want kind %d, close others %q",
				tc.event, got.Kind, got.CloseOthers, got.RunID, got.Warning, got.Tool, tc.kind, tc.closeOthers)
		}
	}
	if !slices.Contains(claudecode.HookEvents, claudecode.UserPromptSubmit) || !slices.Contains(claudecode.HookEvents, claudecode.Stop) ||
		!slices.Contains(claudecode.HookEvents, claudecode.SessionStart) {
		t.Errorf("hook events %v lack the closing events", claudecode.HookEvents)
	}
}
