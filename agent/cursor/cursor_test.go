package cursor_test

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
	"github.com/gitguard/gitguard/agent/claudecode"
	"github.com/gitguard/gitguard/agent/cursor"
	"github.com/gitguard/gitguard/agent/internal/agenttest"
	"github.com/gitguard/gitguard/record"
)

func readCursor(r io.Reader) (*agent.Event, error) { return cursor.Read(r, agent.ReadOptions{}) }

func readClaude(r io.Reader) (*agent.Event, error) { return claudecode.Read(r, agent.ReadOptions{}) }

// replayLine is one line of a replay file: an event and the hook that gets
// it (Cursor's own, or Claude Code's, which Cursor runs as well), or a
// change to the work tree the tool makes.
type replayLine struct {
	Source  string          `json:"source"` // cursor, claude
	Event   json.RawMessage `json:"event"`
	Write   string          `json:"write"`
	Content string          `json:"content"`
	Remove  string          `json:"remove"`
}

const runID = "cu-3f6e2a1c-8b4d-4f7e-9a21-5c0d7e9b1a42"

// replay sends the events of file through the hook each names, makes the
// tool's changes in between, and returns what the hooks said.
func replay(t *testing.T, e *agenttest.Env, file string, only string) (warnings []string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l replayLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		switch {
		case l.Write != "":
			e.Repo.Write(l.Write, l.Content)
		case l.Remove != "":
			e.Repo.Remove(l.Remove)
		case only != "" && l.Source != only:
		case l.Source == "cursor":
			ev, res := e.Hook(readCursor, string(l.Event))
			warnings = append(append(warnings, res.Warnings...), ev.Warning)
		default:
			ev, res := e.Hook(readClaude, string(l.Event))
			warnings = append(append(warnings, res.Warnings...), ev.Warning)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, w := range warnings {
		if w != "" {
			said = append(said, w)
		}
	}
	return said
}

func newRepo(t *testing.T) *agenttest.Env {
	return agenttest.New(t, map[string]string{"README.md": "# Demo\n", "VERSION": "v1\n", "obsolete.txt": "old\n"})
}

// calls lists a run's calls as "id tool status".
func calls(e *agenttest.Env) map[string]string {
	got := map[string]string{}
	for id, c := range e.Run(runID).Calls {
		got[string(id)] = c.Ledger.ToolName + " " + string(c.Ledger.Status)
	}
	return got
}

// TestCursorAndClaudeHooksRecordOnce replays a Cursor session in a project
// with both .cursor/hooks.json and .claude/settings.json running gitguard:
// Cursor hands every tool use to both hooks, in either order. Each is
// recorded once, in one run, with its own patch, and no hook says a word.
func TestCursorAndClaudeHooksRecordOnce(t *testing.T) {
	e := newRepo(t)
	if said := replay(t, e, "testdata/both-hooks.jsonl", ""); len(said) != 0 {
		t.Errorf("the hooks warned: %q", said)
	}
	refs := e.Repo.Git("for-each-ref", "--format=%(refname)", "refs/agent-checkpoints/runs/")
	if refs != "refs/agent-checkpoints/runs/"+runID {
		t.Errorf("runs:\n%s\nwant only %s", refs, runID)
	}
	// The tool's name is the one of the hook that came first: Claude
	// Code's spelling (Bash) for the shell command.
	want := map[string]string{
		"toolu_02Write": "Write succeeded",
		"toolu_03Shell": "Bash succeeded",
		"toolu_04Mcp":   "MCP:write_file succeeded",
	}
	if diff := cmp.Diff(want, calls(e)); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	r := e.Run(runID)
	if !r.Checkpoint.RunFinished {
		t.Error("stop did not finish the run")
	}
	e.CheckPatch(r.Calls["toolu_02Write"], "notes.md", nil)
	sh := r.Calls["toolu_03Shell"]
	e.CheckPatch(sh, "VERSION", agenttest.S("v1\n"))
	e.CheckPatch(sh, "obsolete.txt", agenttest.S("old\n"))
	if diff := cmp.Diff([]string{"VERSION", "obsolete.txt"}, agenttest.PatchPaths(sh)); diff != "" {
		t.Errorf("shell patch paths (-want +got):\n%s", diff)
	}
	e.CheckPatch(r.Calls["toolu_04Mcp"], "out/new.txt", nil)
	e.CheckUserState()
}

// TestCursorHooksAlone: the same session through .cursor/hooks.json only
// records the same calls; so does it through Claude Code's hooks only.
func TestCursorHooksAlone(t *testing.T) {
	for _, only := range []string{"cursor", "claude"} {
		t.Run(only, func(t *testing.T) {
			e := newRepo(t)
			if said := replay(t, e, "testdata/both-hooks.jsonl", only); len(said) != 0 {
				t.Errorf("the hooks warned: %q", said)
			}
			got := calls(e)
			if len(got) != 3 || got["toolu_02Write"] == "" || got["toolu_03Shell"] == "" || got["toolu_04Mcp"] == "" {
				t.Errorf("calls %v", got)
			}
			r := e.Run(runID)
			e.CheckPatch(r.Calls["toolu_02Write"], "notes.md", nil)
			e.CheckPatch(r.Calls["toolu_04Mcp"], "out/new.txt", nil)
			e.CheckUserState()
		})
	}
}

// TestCursorReadOnlyTools: read-only tools record nothing and open no
// repository, through either hook.
func TestCursorReadOnlyTools(t *testing.T) {
	e := newRepo(t)
	for _, tool := range []string{"Read", "Grep", "Glob", "LS", "read_file", "codebase_search", "list_dir", "web_search"} {
		for _, event := range []string{cursor.PreToolUse, cursor.PostToolUse} {
			e.HookReadOnly(readCursor, `{"conversation_id":"c1","hook_event_name":"`+event+`","cursor_version":"2.1.50","tool_name":"`+tool+`","tool_input":{"file_path":"@REPO@/README.md"},"tool_use_id":"t1","cwd":"@REPO@"}`)
		}
	}
	e.HookReadOnly(readClaude, `{"session_id":"c1","conversation_id":"c1","hook_event_name":"PreToolUse","cursor_version":"2.1.50","tool_name":"Read","tool_input":{"file_path":"@REPO@/README.md"},"tool_use_id":"t1","cwd":"@REPO@"}`)
	e.CheckUserState()
}

func TestCursorFailures(t *testing.T) {
	e := newRepo(t)
	pre := `{"conversation_id":"c2","hook_event_name":"preToolUse","cursor_version":"2.1.50","tool_name":"Shell","tool_input":{"command":"echo x >> VERSION; exit 3"},"tool_use_id":"t3","cwd":"@REPO@"}`
	e.Hook(readCursor, pre)
	e.Repo.Write("VERSION", "v1\nx\n")
	post := strings.Replace(strings.Replace(pre, "preToolUse", "postToolUse", 1), `"cwd"`, `"tool_output":"{\"exitCode\":3,\"stdout\":\"\",\"stderr\":\"boom\"}","cwd"`, 1)
	e.Hook(readCursor, post)
	c := e.Call("cu-c2", "t3")
	if c.Ledger.Status != record.StatusFailed || c.Ledger.ExitCode == nil || *c.Ledger.ExitCode != 3 {
		t.Errorf("exit 3: %s %v", c.Ledger.Status, c.Ledger.ExitCode)
	}
	pre = `{"conversation_id":"c2","hook_event_name":"preToolUse","cursor_version":"2.1.50","tool_name":"Edit","tool_input":{"file_path":"@REPO@/README.md","old_string":"nope","new_string":"x"},"tool_use_id":"t4","cwd":"@REPO@"}`
	e.Hook(readCursor, pre)
	e.Hook(readCursor, strings.Replace(strings.Replace(pre, "preToolUse", "postToolUseFailure", 1), `"cwd"`, `"error_message":"old_string not found","cwd"`, 1))
	if c := e.Call("cu-c2", "t4"); c.Ledger.Status != record.StatusFailed || c.Ledger.Result != "old_string not found" {
		t.Errorf("failed edit: %s %q", c.Ledger.Status, c.Ledger.Result)
	}
	if _, err := cursor.Read(strings.NewReader(`{"conversation_id":"c"}`), agent.ReadOptions{}); !errors.Is(err, agent.ErrPayload) {
		t.Errorf("no event name: %v", err)
	}
	if ev, _ := e.Hook(readCursor, `{"conversation_id":"c2","hook_event_name":"somethingNew"}`); ev.Warning == "" {
		t.Error("unknown event not warned")
	}
	for _, quiet := range []string{"afterFileEdit", "beforeShellExecution", "beforeSubmitPrompt"} {
		if ev, _ := e.Hook(readCursor, `{"conversation_id":"c2","hook_event_name":"`+quiet+`","cwd":"@REPO@"}`); ev.Warning != "" || ev.Kind != agent.Ignore {
			t.Errorf("%s: %+v", quiet, ev)
		}
	}
	e.CheckUserState()
}

func TestCursorInit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := "{\n    \"version\": 1,\n    \"hooks\": {\n        \"afterFileEdit\": [{\"command\": \"./format.sh\"}],\n        \"stop\": [{\"command\": \"./audit.sh\"}]\n    }\n}\n"
	if err := os.MkdirAll(dir+"/.cursor", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/.cursor/hooks.json", []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	ch, err := cursor.Init(agent.InitOptions{Command: "gitguard hook cursor", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cursor.HookEvents, ch[0].Added); diff != "" {
		t.Errorf("added (-want +got):\n%s", diff)
	}
	var doc struct {
		Version int `json:"version"`
		Hooks   map[string][]struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(ch[0].After, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || len(doc.Hooks["stop"]) != 2 || doc.Hooks["stop"][0].Command != "./audit.sh" ||
		doc.Hooks["stop"][1].Command != "gitguard hook cursor" || doc.Hooks["afterFileEdit"][0].Command != "./format.sh" {
		t.Errorf("merged:\n%s", ch[0].After)
	}
	if !strings.Contains(string(ch[0].After), "\n    \"hooks\"") {
		t.Errorf("indentation not kept:\n%s", ch[0].After)
	}
	if err := ch[0].Write(); err != nil {
		t.Fatal(err)
	}
	again, err := cursor.Init(agent.InitOptions{Command: "gitguard hook cursor", Dir: dir})
	if err != nil || len(again[0].Added) != 0 {
		t.Errorf("second init added %v (%v)", again[0].Added, err)
	}
}
