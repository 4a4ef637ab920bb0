package gemini_test

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/gemini"
	"github.com/gitguard/gitguard/agent/internal/agenttest"
	"github.com/gitguard/gitguard/record"
)

func read(r io.Reader) (*agent.Event, error) { return gemini.Read(r, agent.ReadOptions{}) }

const sid = "8d0c2f5e-91b4-4c3a-a7de-2b6f0e1c9a44"

// event builds a payload of the shape Gemini CLI 0.61 sends (base fields,
// then the event's own).
func event(name string, fields map[string]any) string {
	m := map[string]any{"session_id": sid, "transcript_path": "/home/u/.gemini/tmp/x/chats/session.json",
		"cwd": "@REPO@", "hook_event_name": name, "timestamp": "2026-12-03T09:00:00.000Z"}
	for k, v := range fields {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func before(tool string, input map[string]any) string {
	return event(gemini.BeforeTool, map[string]any{"tool_name": tool, "tool_input": input})
}

func after(tool string, input map[string]any, resp map[string]any) string {
	if resp == nil {
		resp = map[string]any{"llmContent": "ok", "returnDisplay": "ok"}
	}
	return event(gemini.AfterTool, map[string]any{"tool_name": tool, "tool_input": input, "tool_response": resp})
}

func TestGeminiInterleavedPairing(t *testing.T) {
	e := agenttest.New(t, map[string]string{"main.go": "package main\n", "README.md": "readme\n"})
	run := "gm-" + sid
	e.Hook(read, event(gemini.SessionStart, map[string]any{"source": "startup"}))

	write := map[string]any{"file_path": "@REPO@/notes/todo.md", "content": "- a\n"}
	edit := map[string]any{"file_path": "main.go", "old_string": "package main", "new_string": "package main // x", "instruction": "mark"}
	shell := map[string]any{"command": "echo v2 > VERSION && rm README.md", "description": "bump"}

	// Three tools start before any ends, and end in another order.
	ev1, r1 := e.Hook(read, before("write_file", write))
	_, r2 := e.Hook(read, before("run_shell_command", shell))
	_, r3 := e.Hook(read, before("replace", edit))
	if !ev1.Pair || ev1.CallID != "" {
		t.Fatalf("write_file event: %+v", ev1)
	}
	ids := []string{string(r1.Call), string(r2.Call), string(r3.Call)}
	prefix := "gm-" + sid[:8] + "-"
	if diff := cmp.Diff([]string{prefix + "1", prefix + "2", prefix + "3"}, ids); diff != "" {
		t.Fatalf("ids (-want +got):\n%s", diff)
	}
	e.Repo.Write("VERSION", "v2\n")
	e.Repo.Remove("README.md")
	_, a2 := e.Hook(read, after("run_shell_command", shell, nil))
	e.Repo.Write("main.go", "package main // x\n")
	_, a3 := e.Hook(read, after("replace", edit, nil))
	e.Repo.Write("notes/todo.md", "- a\n")
	_, a1 := e.Hook(read, after("write_file", write, nil))
	if diff := cmp.Diff(ids, []string{string(a1.Call), string(a2.Call), string(a3.Call)}); diff != "" {
		t.Fatalf("after events got other ids (-before +after):\n%s", diff)
	}

	w := e.Call(run, record.CallID(ids[0]))
	if diff := cmp.Diff([]string{"notes/todo.md"}, w.Ledger.Paths); diff != "" {
		t.Errorf("write_file scope (-want +got):\n%s", diff)
	}
	e.CheckPatch(w, "notes/todo.md", nil)
	if w.Ledger.Idempotency != record.Idempotent {
		t.Errorf("write_file idempotency %s", w.Ledger.Idempotency)
	}
	// The shell call started before the edit and ended before it too: the
	// edit of main.go happened after its end, so it is not in its patch.
	s := e.Call(run, record.CallID(ids[1]))
	if diff := cmp.Diff([]string{"README.md", "VERSION"}, agenttest.PatchPaths(s)); diff != "" {
		t.Errorf("shell patches (-want +got):\n%s", diff)
	}
	e.CheckPatch(s, "README.md", agenttest.S("readme\n"))
	e.CheckPatch(s, "VERSION", nil)
	r := e.Call(run, record.CallID(ids[2]))
	e.CheckPatch(r, "main.go", agenttest.S("package main\n"))

	// The pairing state lives under the git dir, never in the work tree.
	if _, err := os.Stat(filepath.Join(e.Repo.Dir, ".git", "gitguard", "agents", "pairs-"+run+".json")); err != nil {
		t.Errorf("pairing state: %v", err)
	}
	if st := e.Status(); strings.Contains(st, "gitguard") {
		t.Errorf("state in the work tree: %s", st)
	}

	// One tool use undone: the others stay.
	e.Undo(run, ids[1])
	if e.File("README.md") != "readme\n" || e.File("VERSION") != "" || e.File("main.go") != "package main // x\n" {
		t.Errorf("undo of the shell call: README=%q VERSION=%q main.go=%q", e.File("README.md"), e.File("VERSION"), e.File("main.go"))
	}

	e.Hook(read, event(gemini.SessionEnd, map[string]any{"reason": "exit"}))
	if !e.Run(run).Checkpoint.RunFinished {
		t.Error("SessionEnd did not finish the run")
	}
	if _, err := os.Stat(filepath.Join(e.Repo.Dir, ".git", "gitguard", "agents", "pairs-"+run+".json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pairing state left after SessionEnd: %v", err)
	}
	e.CheckUserState()
}

func TestGeminiFailureAndLostEvents(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	run := "gm-" + sid
	edit := map[string]any{"file_path": "a.txt", "old_string": "zzz", "new_string": "y"}
	_, r := e.Hook(read, before("replace", edit))
	e.Hook(read, after("replace", edit, map[string]any{"llmContent": "Error", "returnDisplay": "Error",
		"error": map[string]any{"message": "Failed to edit, 0 occurrences found", "type": "edit_no_occurrence_found"}}))
	c := e.Call(run, r.Call)
	if c.Ledger.Status != record.StatusFailed || !strings.Contains(c.Ledger.Result, "0 occurrences") {
		t.Errorf("failed replace: %s %q", c.Ledger.Status, c.Ledger.Result)
	}

	// An AfterTool whose BeforeTool never came: in the ledger, no patch, a warning.
	e.Repo.Write("late.txt", "late\n")
	_, late := e.Hook(read, after("write_file", map[string]any{"file_path": "late.txt", "content": "late\n"}, nil))
	if len(late.Warnings) != 1 || !strings.Contains(late.Warnings[0], "start was never recorded") {
		t.Errorf("warnings %q", late.Warnings)
	}
	if lc := e.Call(run, late.Call); len(lc.Patches) != 0 || !strings.Contains(lc.Ledger.Result, "no BeforeTool seen") {
		t.Errorf("late call: %d patches, %q", len(lc.Patches), lc.Ledger.Result)
	}

	// A BeforeTool whose AfterTool never comes (another hook blocked the
	// tool, or the CLI was killed): finished as uncertain at SessionEnd.
	shell := map[string]any{"command": "touch b.txt"}
	_, open := e.Hook(read, before("run_shell_command", shell))
	e.Repo.Write("b.txt", "")
	_, end := e.Hook(read, event(gemini.SessionEnd, map[string]any{"reason": "exit"}))
	oc := e.Call(run, open.Call)
	if oc.Ledger.Status != record.StatusUncertain {
		t.Errorf("open call at SessionEnd: %s", oc.Ledger.Status)
	}
	e.CheckPatch(oc, "b.txt", nil)
	if len(end.Warnings) != 1 {
		t.Errorf("SessionEnd warnings %q", end.Warnings)
	}
	// Ids never repeat, even when the pairing state is lost.
	if err := os.RemoveAll(filepath.Join(e.Repo.Dir, ".git", "gitguard", "agents")); err != nil {
		t.Fatal(err)
	}
	_, again := e.Hook(read, before("write_file", map[string]any{"file_path": "c.txt", "content": "c"}))
	if again.Call == r.Call || again.Call == late.Call || again.Call == open.Call {
		t.Errorf("id %s handed out twice", again.Call)
	}
	e.CheckUserState()
}

func TestGeminiUnknownIsWarned(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	for _, tc := range []struct {
		payload string
		warn    bool
	}{
		{event("BeforeAgent", map[string]any{"prompt": "hi"}), false},
		{event("AfterModel", nil), false},
		{before("read_file", map[string]any{"file_path": "a.txt"}), false},
		{event("BeforeSomethingNew", nil), true},
	} {
		ev, _ := e.Hook(read, tc.payload)
		if (ev.Warning != "") != tc.warn {
			t.Errorf("%s: warning %q", tc.payload, ev.Warning)
		}
	}
	if out := e.Repo.Git("for-each-ref", "refs/agent-checkpoints/"); out != "" {
		t.Errorf("recorded: %s", out)
	}
	e.CheckUserState()
}

// TestGeminiMCPWriteTool: a tool gitguard does not know (an MCP server's
// that writes a file) is a whole-workspace call; read-only tools record
// nothing and open no repository.
func TestGeminiMCPWriteTool(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	in := map[string]any{"path": "out/new.txt", "content": "new\n"}
	_, r1 := e.Hook(read, before("mcp_filesystem_write_file", in))
	e.Repo.Write("out/new.txt", "new\n")
	_, r2 := e.Hook(read, after("mcp_filesystem_write_file", in, nil))
	if r1.Call == "" || r1.Call != r2.Call {
		t.Fatalf("MCP write calls %q %q", r1.Call, r2.Call)
	}
	c := e.Call("gm-"+sid, r1.Call)
	if c.Ledger.ToolName != "mcp_filesystem_write_file" || c.Ledger.Status != record.StatusSucceeded {
		t.Errorf("MCP write: tool %q status %s", c.Ledger.ToolName, c.Ledger.Status)
	}
	e.CheckPatch(c, "out/new.txt", nil)
	for _, tool := range []string{"read_file", "glob", "grep_search", "list_directory", "web_fetch", "write_todos"} {
		e.HookReadOnly(read, before(tool, map[string]any{"file_path": "a.txt"}))
		e.HookReadOnly(read, after(tool, map[string]any{"file_path": "a.txt"}, nil))
	}
	e.CheckUserState()
}

func TestPairingConcurrent(t *testing.T) {
	t.Parallel()
	p := &agent.Pairing{Dir: t.TempDir(), Run: "gm-x", Prefix: "gm-x-"}
	const n = 20
	ids := make(chan string, n)
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			id, err := p.Begin("tool\x00" + string(rune('a'+i)))
			ids <- id
			errs <- err
		}(i)
	}
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		id := <-ids
		if seen[id] {
			t.Errorf("id %s handed out twice", id)
		}
		seen[id] = true
	}
	open, err := p.Drain()
	if err != nil || len(open) != n {
		t.Errorf("drain: %d open, %v", len(open), err)
	}
}

func TestGeminiInit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := "{\n    \"theme\": \"Dracula\",\n    \"hooks\": {\n        \"BeforeTool\": [\n            {\"matcher\": \"write_file\", \"hooks\": [{\"type\": \"command\", \"command\": \"./check.sh\"}]}\n        ]\n    }\n}\n"
	path := filepath.Join(dir, ".gemini", "settings.json")
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	o := agent.InitOptions{Command: gemini.HookCommand, Dir: dir, MCP: true, MCPCommand: "gitguard mcp"}
	ch, err := gemini.Init(o)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"BeforeTool", "AfterTool", "SessionStart", "SessionEnd", "mcp server gitguard"}, ch[0].Added); diff != "" {
		t.Errorf("added (-want +got):\n%s", diff)
	}
	var doc struct {
		Theme string `json:"theme"`
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct{ Command string }
		} `json:"hooks"`
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(ch[0].After, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Theme != "Dracula" || len(doc.Hooks["BeforeTool"]) != 2 || doc.Hooks["BeforeTool"][0].Hooks[0].Command != "./check.sh" {
		t.Errorf("merged: %s", ch[0].After)
	}
	if doc.Hooks["AfterTool"][0].Matcher != gemini.HookMatcher || doc.MCPServers["gitguard"].Command != "gitguard" {
		t.Errorf("merged: %s", ch[0].After)
	}
	if !strings.Contains(string(ch[0].After), "\n    \"theme\"") {
		t.Error("indentation not kept")
	}
	if err := ch[0].Write(); err != nil {
		t.Fatal(err)
	}
	if ch2, err := gemini.Init(o); err != nil || len(ch2[0].Added) != 0 {
		t.Errorf("second init added %v (%v)", ch2[0].Added, err)
	}
	// A symlinked settings file is not written through.
	d := t.TempDir()
	_ = os.MkdirAll(filepath.Join(d, ".gemini"), 0o755)
	if err := os.Symlink(path, filepath.Join(d, ".gemini", "settings.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := gemini.Init(agent.InitOptions{Command: gemini.HookCommand, Dir: d}); !errors.Is(err, agent.ErrNotRegular) {
		t.Errorf("symlink: %v", err)
	}
}

func TestGeminiShellExitCode(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	for i, tc := range []struct {
		content string
		status  record.Status
		exit    int
	}{
		{"Output: (empty)\nExit Code: 3\nProcess Group PGID: 4242", record.StatusFailed, 3},
		{"Output: build ok\nProcess Group PGID: 4242", record.StatusSucceeded, 0},
		// The command's own output may say anything.
		{"Output: Exit Code: 1\nlooks bad\nProcess Group PGID: 1", record.StatusSucceeded, 0},
		{"Output: (empty)\nSignal: 9", record.StatusFailed, 0},
		// As Gemini CLI 0.61 sends it.
		{"<untrusted_context>\nOutput: (empty)\nExit Code: 3\nProcess Group PGID: 6920\n</untrusted_context>", record.StatusFailed, 3},
		{"<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 6009\n</untrusted_context>", record.StatusSucceeded, 0},
	} {
		shell := map[string]any{"command": "step " + string(rune('a'+i))}
		_, r := e.Hook(read, before("run_shell_command", shell))
		e.Hook(read, after("run_shell_command", shell, map[string]any{"llmContent": tc.content, "returnDisplay": ""}))
		c := e.Call("gm-"+sid, r.Call)
		if c.Ledger.Status != tc.status {
			t.Errorf("%q: status %s, want %s", tc.content, c.Ledger.Status, tc.status)
		}
		if tc.exit != 0 && (c.Ledger.ExitCode == nil || *c.Ledger.ExitCode != tc.exit) {
			t.Errorf("%q: exit code %v", tc.content, c.Ledger.ExitCode)
		}
	}
	e.CheckUserState()
}
