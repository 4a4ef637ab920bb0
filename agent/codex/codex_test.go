package codex_test

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
	"github.com/gitguard/gitguard/agent/codex"
	"github.com/gitguard/gitguard/agent/internal/agenttest"
	"github.com/gitguard/gitguard/record"
)

func TestPatchPaths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, patch string
		want        []string
	}{
		{"add update delete", "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** Update File: src/a.go\n@@\n-x\n+y\n*** Delete File: old.txt\n*** End Patch\n",
			[]string{"new.txt", "src/a.go", "old.txt"}},
		{"move", "*** Begin Patch\n*** Update File: a/from.txt\n*** Move to: b/to.txt\n@@\n-1\n+2\n*** End Patch",
			[]string{"a/from.txt", "b/to.txt"}},
		{"crlf and spaces", "*** Begin Patch\r\n*** Add File: dir with space/f.txt  \r\n+x\r\n*** End Patch\r\n",
			[]string{"dir with space/f.txt"}},
		{"markers inside hunks are content", "*** Begin Patch\n*** Update File: doc.md\n@@\n *** Add File: not-a-file\n+*** Delete File: nor-this\n-*** Move to: nor-that\n*** End Patch",
			[]string{"doc.md"}},
		{"each path once", "*** Update File: a\n*** Update File: a\n*** Delete File: a\n", []string{"a"}},
		{"absolute path", "*** Add File: /abs/x.txt\n+x\n", []string{"/abs/x.txt"}},
		{"no patch", "ls -la", nil},
		{"empty name", "*** Add File: \n", nil},
	} {
		got, ok := codex.PatchPaths(tc.patch)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: paths (-want +got):\n%s", tc.name, diff)
		}
		if ok != (len(tc.want) > 0) {
			t.Errorf("%s: ok = %v", tc.name, ok)
		}
	}
}

func read(r io.Reader) (*agent.Event, error) { return codex.Read(r, agent.ReadOptions{}) }

// payload builds a recorded-shape Codex event.
func payload(session, event string, fields map[string]any) string {
	m := map[string]any{"session_id": session, "turn_id": "turn-1", "transcript_path": nil, "cwd": "@REPO@",
		"hook_event_name": event, "model": "gpt-5.5", "permission_mode": "bypassPermissions"}
	for k, v := range fields {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func tool(session, event, name, id, command string, extra map[string]any) string {
	f := map[string]any{"tool_name": name, "tool_use_id": id, "tool_input": map[string]any{"command": command}}
	for k, v := range extra {
		f[k] = v
	}
	return payload(session, event, f)
}

const patchText = `*** Begin Patch
*** Update File: src/app.go
@@
-package app
+package app // edited
*** Add File: src/new file.txt
+fresh
*** Delete File: obsolete.txt
*** Update File: docs/old.md
*** Move to: docs/new.md
@@
-old
+moved
*** Add File: ../outside.txt
+never recorded
*** End Patch
`

func TestCodexSession(t *testing.T) {
	e := agenttest.New(t, map[string]string{
		"src/app.go": "package app\n", "obsolete.txt": "bye\n", "docs/old.md": "old\n", "notes.txt": "mine\n",
		"VERSION": "1\n",
	})
	const sid = "019a3f2e-6c1d-7b40-9e55-3c2f1a0d9b87"
	run := "cx-" + sid
	e.Hook(read, payload(sid, codex.SessionStart, map[string]any{"source": "startup"}))

	// apply_patch: a call over exactly the files the patch names.
	ev, _ := e.Hook(read, tool(sid, codex.PreToolUse, "apply_patch", "call_patch1", patchText, nil))
	if ev.Whole || len(ev.Paths) != 6 { // ../outside.txt is dropped when recorded
		t.Fatalf("apply_patch event: whole=%v paths=%v", ev.Whole, ev.Paths)
	}
	w := func(p, c string) { e.Repo.Write(p, c) }
	w("src/app.go", "package app // edited\n")
	w("src/new file.txt", "fresh\n")
	e.Repo.Remove("obsolete.txt")
	e.Repo.Remove("docs/old.md")
	w("docs/new.md", "moved\n")
	// The user edits a file the patch does not name, meanwhile.
	w("notes.txt", "mine, edited by the user\n")
	e.Hook(read, tool(sid, codex.PostToolUse, "apply_patch", "call_patch1", patchText,
		map[string]any{"tool_response": "Success. Updated the following files: ..."}))

	c := e.Call(run, "call_patch1")
	if c.Ledger.Status != record.StatusSucceeded {
		t.Errorf("status %s", c.Ledger.Status)
	}
	if diff := cmp.Diff([]string{"docs/new.md", "docs/old.md", "obsolete.txt", "src/app.go", "src/new file.txt"}, sorted(c.Ledger.Paths)); diff != "" {
		t.Errorf("scope (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"docs/new.md", "docs/old.md", "obsolete.txt", "src/app.go", "src/new file.txt"}, sorted(agenttest.PatchPaths(c))); diff != "" {
		t.Errorf("patches (-want +got):\n%s", diff)
	}
	e.CheckPatch(c, "src/app.go", agenttest.S("package app\n"))
	e.CheckPatch(c, "src/new file.txt", nil)
	e.CheckPatch(c, "obsolete.txt", agenttest.S("bye\n"))
	e.CheckPatch(c, "docs/new.md", nil)
	e.CheckPatch(c, "docs/old.md", agenttest.S("old\n"))

	// Bash: the whole workspace, a subfolder and a deletion included.
	cmd := "sed -i s/1/2/ VERSION && mkdir -p gen && echo x > gen/out.txt"
	if ev, _ := e.Hook(read, tool(sid, codex.PreToolUse, "Bash", "call_bash2", cmd, nil)); !ev.Whole {
		t.Fatal("Bash is not a whole-workspace call")
	}
	w("VERSION", "2\n")
	w("gen/out.txt", "x\n")
	e.Hook(read, tool(sid, codex.PostToolUse, "Bash", "call_bash2", cmd, map[string]any{"tool_response": map[string]any{"exit_code": 0}}))
	b := e.Call(run, "call_bash2")
	if diff := cmp.Diff([]string{"VERSION", "gen/out.txt"}, sorted(agenttest.PatchPaths(b))); diff != "" {
		t.Errorf("bash patches (-want +got):\n%s", diff)
	}
	e.CheckPatch(b, "VERSION", agenttest.S("1\n"))
	if b.Ledger.Input != cmd {
		t.Errorf("bash input %q", b.Ledger.Input)
	}

	// A failing Bash.
	e.Hook(read, tool(sid, codex.PreToolUse, "Bash", "call_fail3", "false", nil))
	e.Hook(read, tool(sid, codex.PostToolUse, "Bash", "call_fail3", "false", map[string]any{"tool_response": map[string]any{"exit_code": 1, "stderr": "boom"}}))
	if f := e.Call(run, "call_fail3"); f.Ledger.Status != record.StatusFailed || f.Ledger.ExitCode == nil || *f.Ledger.ExitCode != 1 {
		t.Errorf("failing Bash: %s %v", f.Ledger.Status, f.Ledger.ExitCode)
	}

	// Stop ends the run.
	e.Hook(read, payload(sid, codex.Stop, map[string]any{"stop_hook_active": false, "last_assistant_message": "done"}))
	if r := e.Run(run); !r.Checkpoint.RunFinished {
		t.Error("Stop did not finish the run")
	}
	if active, _ := e.Guard().ActiveRun(); active != "" {
		t.Errorf("active run %q after Stop", active)
	}

	// Undo the patch: its files come back, the user's edit stays.
	e.Undo(run, "call_patch1")
	for p, want := range map[string]string{"src/app.go": "package app\n", "obsolete.txt": "bye\n", "docs/old.md": "old\n",
		"docs/new.md": "", "src/new file.txt": "", "notes.txt": "mine, edited by the user\n", "VERSION": "2\n"} {
		if got := e.File(p); got != want {
			t.Errorf("after undo %s = %q, want %q", p, got, want)
		}
	}
	e.CheckUserState()
}

func TestCodexNextTurnContinuesRun(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	e.Hook(read, tool("s1", codex.PreToolUse, "Bash", "c1", "echo 1 > a.txt", nil))
	e.Repo.Write("a.txt", "1\n")
	e.Hook(read, tool("s1", codex.PostToolUse, "Bash", "c1", "echo 1 > a.txt", nil))
	e.Hook(read, payload("s1", codex.Stop, nil))
	// The next turn of the same session.
	e.Hook(read, tool("s1", codex.PreToolUse, "Bash", "c2", "echo 2 > a.txt", nil))
	e.Repo.Write("a.txt", "2\n")
	e.Hook(read, tool("s1", codex.PostToolUse, "Bash", "c2", "echo 2 > a.txt", nil))
	if active, _ := e.Guard().ActiveRun(); active != "cx-s1" {
		t.Errorf("active run %q, want cx-s1 again", active)
	}
	e.CheckPatch(e.Call("cx-s1", "c2"), "a.txt", agenttest.S("1\n"))
	e.CheckUserState()
}

func TestCodexOtherSessionEndsRun(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	e.Hook(read, tool("s1", codex.PreToolUse, "Bash", "c1", "true", nil))
	e.Hook(read, tool("s1", codex.PostToolUse, "Bash", "c1", "true", nil))
	// s1 never sent Stop (killed); s1 resumed is still s1: nothing ends.
	e.Hook(read, payload("s1", codex.SessionStart, map[string]any{"source": "resume"}))
	if e.Run("cx-s1").Checkpoint.RunFinished {
		t.Fatal("resuming the same session finished its run")
	}
	e.Hook(read, payload("s2", codex.SessionStart, map[string]any{"source": "startup"}))
	if !e.Run("cx-s1").Checkpoint.RunFinished {
		t.Error("another session's start did not finish the run left active")
	}
	if active, _ := e.Guard().ActiveRun(); active != "" {
		t.Errorf("active run %q", active)
	}
	e.CheckUserState()
}

func TestCodexUnknownEventIsWarned(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	if ev, _ := e.Hook(read, payload("s1", "BrandNewEvent", nil)); ev.Warning == "" {
		t.Error("no warning for an unknown event")
	}
	for _, p := range []string{payload("s1", "UserPromptSubmit", nil), payload("s1", "PermissionRequest", nil)} {
		if ev, _ := e.Hook(read, p); ev.Warning != "" {
			t.Errorf("warning for a known event: %s", ev.Warning)
		}
	}
	if out := e.Repo.Git("for-each-ref", "refs/agent-checkpoints/"); out != "" {
		t.Errorf("unknown events recorded something: %s", out)
	}
	e.CheckUserState()
}

// TestCodexMCPWriteTool: a tool gitguard does not know (an MCP server's
// that writes a file) is a whole-workspace call; read-only tools record
// nothing and open no repository.
func TestCodexMCPWriteTool(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	in := map[string]any{"tool_input": map[string]any{"path": "out/new.txt", "content": "new\n"}}
	e.Hook(read, tool("s1", codex.PreToolUse, "mcp__filesystem__write_file", "call_mcp1", "", in))
	e.Repo.Write("out/new.txt", "new\n")
	in["tool_response"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "Successfully wrote to out/new.txt"}}}
	e.Hook(read, tool("s1", codex.PostToolUse, "mcp__filesystem__write_file", "call_mcp1", "", in))
	c := e.Call("cx-s1", "call_mcp1")
	if c.Ledger.ToolName != "mcp__filesystem__write_file" || c.Ledger.Status != record.StatusSucceeded || len(c.Ledger.Paths) != 0 {
		t.Errorf("MCP write: tool %q status %s scope %v", c.Ledger.ToolName, c.Ledger.Status, c.Ledger.Paths)
	}
	e.CheckPatch(c, "out/new.txt", nil)
	for _, name := range []string{"update_plan", "view_image", "web_search", "tool_search", "mcp__gitguard__ledger"} {
		for _, event := range []string{codex.PreToolUse, codex.PostToolUse} {
			e.HookReadOnly(read, tool("s1", event, name, "call_ro", "", nil))
		}
	}
	// --workspace-tool records even a tool gitguard takes to be read-only.
	ev, err := codex.Read(strings.NewReader(tool("s1", codex.PreToolUse, "view_image", "c9", "", nil)),
		agent.ReadOptions{WorkspaceTools: []string{"view_image"}})
	if err != nil || !ev.Whole || ev.Kind != agent.Pre {
		t.Errorf("workspace tool: %+v %v", ev, err)
	}
	e.CheckUserState()
}

func TestCodexBadPayload(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", "not json", `{"session_id":"s"}`, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"x"}`} {
		if _, err := codex.Read(strings.NewReader(p), agent.ReadOptions{}); !errors.Is(err, agent.ErrPayload) {
			t.Errorf("Read(%q) = %v, want ErrPayload", p, err)
		}
	}
}

func TestCodexInit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := "# my settings\nmodel = \"gpt-5.5\"\n\n[features]\nhooks = true\n\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"./lint.sh\"\n"
	path := filepath.Join(dir, ".codex", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	o := agent.InitOptions{Command: "/opt/bin/gitguard hook codex", Dir: dir, MCP: true, MCPCommand: "/opt/bin/gitguard mcp"}
	ch, err := codex.Init(o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(ch[0].After), user) {
		t.Error("the user's text was not kept byte for byte at the top")
	}
	if diff := cmp.Diff([]string{"PreToolUse", "PostToolUse", "SessionStart", "Stop", "mcp server gitguard"}, ch[0].Added); diff != "" {
		t.Errorf("added (-want +got):\n%s", diff)
	}
	if err := ch[0].Write(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600", fi.Mode().Perm())
	}
	// The user's PreToolUse group is still there, beside gitguard's.
	after := string(ch[0].After)
	if strings.Count(after, "[[hooks.PreToolUse]]") != 2 || !strings.Contains(after, `command = "./lint.sh"`) {
		t.Errorf("merged file:\n%s", after)
	}
	// Idempotent.
	ch2, err := codex.Init(o)
	if err != nil || len(ch2[0].Added) != 0 || string(ch2[0].After) != after {
		t.Errorf("second init added %v (err %v)", ch2[0].Added, err)
	}
	// Hooks written as an inline table cannot take [[hooks.X]] tables: refused, file untouched.
	inline := filepath.Join(t.TempDir(), "x")
	if err := os.MkdirAll(filepath.Join(inline, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	bad := "hooks = { }\n"
	if err := os.WriteFile(filepath.Join(inline, ".codex", "config.toml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := codex.Init(agent.InitOptions{Command: codex.HookCommand, Dir: inline}); !errors.Is(err, agent.ErrNotSettings) {
		t.Errorf("inline hooks table: err %v, want ErrNotSettings", err)
	}
	for _, broken := range []string{"model = ", "[hooks\n"} {
		d := t.TempDir()
		_ = os.MkdirAll(filepath.Join(d, ".codex"), 0o755)
		_ = os.WriteFile(filepath.Join(d, ".codex", "config.toml"), []byte(broken), 0o644)
		if _, err := codex.Init(agent.InitOptions{Command: codex.HookCommand, Dir: d}); !errors.Is(err, agent.ErrNotSettings) {
			t.Errorf("%q: err %v, want ErrNotSettings", broken, err)
		}
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func FuzzPatchPaths(f *testing.F) {
	f.Add(patchText)
	f.Add("*** Add File: a\n*** Move to: \n")
	f.Fuzz(func(t *testing.T, patch string) {
		paths, ok := codex.PatchPaths(patch)
		if ok != (len(paths) > 0) {
			t.Fatalf("ok = %v with %d paths", ok, len(paths))
		}
		seen := map[string]bool{}
		for _, p := range paths {
			if p == "" || p != strings.TrimSpace(p) || strings.ContainsAny(p, "\n") || seen[p] {
				t.Fatalf("bad path %q in %q", p, paths)
			}
			seen[p] = true
			if !strings.Contains(patch, p) {
				t.Fatalf("path %q not in the patch", p)
			}
		}
	})
}

// Odd names in a patch: a leading dash, spaces, non-ASCII, a path into .git.
func TestCodexPatchOddNames(t *testing.T) {
	e := agenttest.New(t, map[string]string{"-n.txt": "dash\n"})
	patch := "*** Begin Patch\n*** Update File: -n.txt\n@@\n-dash\n+DASH\n*** Add File: dir with space/ünï.txt\n+u\n*** Add File: .git/hooks/pre-commit\n+evil\n*** End Patch"
	e.Hook(read, tool("s1", codex.PreToolUse, "apply_patch", "c1", patch, nil))
	e.Repo.Write("-n.txt", "DASH\n")
	e.Repo.Write("dir with space/ünï.txt", "u\n")
	e.Hook(read, tool("s1", codex.PostToolUse, "apply_patch", "c1", patch, nil))
	c := e.Call("cx-s1", "c1")
	if diff := cmp.Diff([]string{"-n.txt", "dir with space/ünï.txt"}, sorted(c.Ledger.Paths)); diff != "" {
		t.Errorf("scope (-want +got; .git is never a call's path):\n%s", diff)
	}
	e.CheckPatch(c, "-n.txt", agenttest.S("dash\n"))
	e.CheckPatch(c, "dir with space/ünï.txt", nil)
	e.Undo("cx-s1", "c1")
	if e.File("-n.txt") != "dash\n" || e.File("dir with space/ünï.txt") != "" {
		t.Errorf("undo: %q %q", e.File("-n.txt"), e.File("dir with space/ünï.txt"))
	}
	e.CheckUserState()
}

// An apply_patch that does not apply gets a PreToolUse and no PostToolUse
// from Codex: Stop finishes it as uncertain, never leaves it started.
func TestCodexCallWithoutPostEndsUncertain(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-zzz\n+y\n*** End Patch"
	e.Hook(read, tool("s1", codex.PreToolUse, "apply_patch", "c1", patch, nil))
	_, res := e.Hook(read, payload("s1", codex.Stop, nil))
	c := e.Call("cx-s1", "c1")
	if c.Ledger.Status != record.StatusUncertain || len(c.Patches) != 0 {
		t.Errorf("call without PostToolUse: %s, %d patches", c.Ledger.Status, len(c.Patches))
	}
	if len(res.Warnings) != 1 || !e.Run("cx-s1").Checkpoint.RunFinished {
		t.Errorf("warnings %q, run finished %v", res.Warnings, e.Run("cx-s1").Checkpoint.RunFinished)
	}
	e.CheckUserState()
}

// newScenarioRepo is the repository the recorded sessions ran in.
func newScenarioRepo(t *testing.T) *agenttest.Env {
	return agenttest.New(t, map[string]string{
		"README.md": "# Demo\n\nStatus: draft\n", "VERSION": "v1\n", "LICENSE": "MIT\n", "NOTICE": "notice\n",
		"main.go": "package main\n", "CHANGELOG": "- v1\n",
	})
}

// TestCodexInitWidensOldMatcher: the hook tables an older gitguard wrote
// (matcher "Bash|apply_patch") lose their matcher on the next init, so that
// every tool is recorded; a table of the user's with that matcher is kept.
func TestCodexInitWidensOldMatcher(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := "# mine\n[[hooks.PreToolUse]]\nmatcher = \"Bash|apply_patch\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"./lint.sh\"\n\n" +
		"# gitguard: record each Codex tool use (gitguard init codex)\n"
	for _, ev := range []string{"PreToolUse", "PostToolUse"} {
		old += "[[hooks." + ev + "]]\nmatcher = \"Bash|apply_patch\"\n\n[[hooks." + ev + ".hooks]]\ntype = \"command\"\ncommand = \"gitguard-hook codex\"\n\n"
	}
	for _, ev := range []string{"SessionStart", "Stop"} {
		old += "[[hooks." + ev + "]]\n\n[[hooks." + ev + ".hooks]]\ntype = \"command\"\ncommand = \"gitguard-hook codex\"\n\n"
	}
	if err := os.MkdirAll(filepath.Join(dir, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".codex", "config.toml"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	ch, err := codex.Init(agent.InitOptions{Command: "gitguard-hook codex", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch[0].Added) != 2 || !strings.HasPrefix(ch[0].Added[0], "PreToolUse") || !strings.HasPrefix(ch[0].Added[1], "PostToolUse") {
		t.Errorf("added %q", ch[0].Added)
	}
	want := strings.Replace(old, "matcher = \"Bash|apply_patch\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"gitguard-hook", "\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"gitguard-hook", 1)
	want = strings.Replace(want, "matcher = \"Bash|apply_patch\"\n\n[[hooks.PostToolUse.hooks]]", "\n[[hooks.PostToolUse.hooks]]", 1)
	if diff := cmp.Diff(want, string(ch[0].After)); diff != "" {
		t.Errorf("widened file (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(ch[0].After), "matcher = \"Bash|apply_patch\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"./lint.sh\"") {
		t.Error("the user's table lost its matcher")
	}
	if err := ch[0].Write(); err != nil {
		t.Fatal(err)
	}
	again, err := codex.Init(agent.InitOptions{Command: "gitguard-hook codex", Dir: dir})
	if err != nil || len(again[0].Added) != 0 {
		t.Errorf("second init added %v (%v)", again[0].Added, err)
	}
}
