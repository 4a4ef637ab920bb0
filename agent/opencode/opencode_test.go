package opencode_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/internal/agenttest"
	"github.com/gitguard/gitguard/agent/opencode"
	"github.com/gitguard/gitguard/record"
)

// The test binary doubles as "gitguard hook opencode" for the plugin: with
// OPENCODE_TEST_HOOK set it reads one event on stdin, records it and exits
// as the hook does (2 when it fails and the variable says fail-closed).
func TestMain(m *testing.M) {
	if mode := os.Getenv("OPENCODE_TEST_HOOK"); mode != "" {
		os.Exit(hookMain(mode == "fail-closed"))
	}
	os.Exit(m.Run())
}

func hookMain(failClosed bool) int {
	ctx := context.Background()
	data, _ := io.ReadAll(os.Stdin)
	if log := os.Getenv("OPENCODE_TEST_LOG"); log != "" {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			f.Write(append(data, '\n'))
			f.Close()
		}
	}
	ev, err := opencode.Read(bytes.NewReader(data), agent.ReadOptions{})
	if err == nil && ev.Warning != "" {
		err = fmt.Errorf("%s", ev.Warning)
	}
	if err == nil {
		_, err = agent.Handle(ctx, ev, agent.Options{Dir: ".", Open: func(ctx context.Context, dir string) (*gitguard.Guard, error) {
			return gitguard.Open(ctx, dir, gitguard.Options{Workspace: gitguard.WorkspaceOptions{UseDaemon: false}})
		}})
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gitguard: warning: %v\n", err)
		if failClosed {
			return 2
		}
	}
	return 0
}

func read(r io.Reader) (*agent.Event, error) { return opencode.Read(r, agent.ReadOptions{}) }

func TestOpencodeEvents(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: b.txt\n*** End Patch"
	args := fmt.Sprintf(`{"patchText":%q}`, patch)
	e.Hook(read, `{"event":"tool.execute.before","session_id":"ses_1","call_id":"call_p","tool":"apply_patch","args":`+args+`,"cwd":"@REPO@"}`)
	e.Repo.Write("a.txt", "A\n")
	e.Repo.Remove("b.txt")
	e.Hook(read, `{"event":"tool.execute.after","session_id":"ses_1","call_id":"call_p","tool":"apply_patch","args":`+args+`,"cwd":"@REPO@","title":"patch","metadata":{}}`)
	c := e.Call("oc-ses_1", "call_p")
	e.CheckPatch(c, "a.txt", agenttest.S("a\n"))
	e.CheckPatch(c, "b.txt", agenttest.S("b\n"))
	if len(c.Ledger.Paths) != 2 {
		t.Errorf("scope %v", c.Ledger.Paths)
	}
	e.Hook(read, `{"event":"tool.execute.before","session_id":"ses_1","call_id":"call_b","tool":"bash","args":{"command":"false"},"cwd":"@REPO@"}`)
	e.Hook(read, `{"event":"tool.execute.after","session_id":"ses_1","call_id":"call_b","tool":"bash","args":{"command":"false"},"cwd":"@REPO@","metadata":{"exit":1}}`)
	if b := e.Call("oc-ses_1", "call_b"); b.Ledger.Status != record.StatusFailed {
		t.Errorf("bash exit 1: %s", b.Ledger.Status)
	}
	// A tool gitguard does not know (an MCP server's that writes a file)
	// is a whole-workspace call.
	mcp := `"tool":"filesystem_write_file","args":{"path":"out/new.txt","content":"new\n"},"cwd":"@REPO@"`
	e.Hook(read, `{"event":"tool.execute.before","session_id":"ses_1","call_id":"call_m",`+mcp+`}`)
	e.Repo.Write("out/new.txt", "new\n")
	e.Hook(read, `{"event":"tool.execute.after","session_id":"ses_1","call_id":"call_m",`+mcp+`,"title":"","metadata":{}}`)
	m := e.Call("oc-ses_1", "call_m")
	if m.Ledger.ToolName != "filesystem_write_file" || len(m.Ledger.Paths) != 0 {
		t.Errorf("MCP write: tool %q scope %v", m.Ledger.ToolName, m.Ledger.Paths)
	}
	e.CheckPatch(m, "out/new.txt", nil)
	for _, tool := range []string{"read", "grep", "glob", "list", "webfetch", "todowrite", "gitguard_status"} {
		for _, ev := range []string{"tool.execute.before", "tool.execute.after"} {
			e.HookReadOnly(read, `{"event":"`+ev+`","session_id":"ses_1","call_id":"c","tool":"`+tool+`","args":{"filePath":"a.txt"},"cwd":"@REPO@"}`)
		}
	}
	e.CheckUserState()
}

// TestOpencodePlugin runs the plugin init writes under node, as opencode
// would load it, with this test binary as the hook.
func TestOpencodePlugin(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found: the plugin cannot be run")
	}
	e := agenttest.New(t, map[string]string{"keep.txt": "keep\n"})
	ch, err := opencode.Init(agent.InitOptions{Command: os.Args[0], Dir: e.Repo.Dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := ch[0].Write(); err != nil {
		t.Fatal(err)
	}
	driver := filepath.Join(t.TempDir(), "drive.mjs")
	script := `
import fs from "node:fs"
const [plugin, dir] = process.argv.slice(2)
const logs = []
const mod = await import(plugin)
const p = await mod.GitguardPlugin({ directory: dir, client: { app: { log: async (x) => logs.push(x.body.message) } } })
// Read-only tools: the plugin answers them without starting the hook.
await p["tool.execute.before"]({ tool: "read", sessionID: "ses_A", callID: "call_r" }, { args: { filePath: dir + "/keep.txt" } })
await p["tool.execute.after"]({ tool: "read", sessionID: "ses_A", callID: "call_r" }, { title: "keep.txt", output: "keep", metadata: {} })
await p["tool.execute.before"]({ tool: "write", sessionID: "ses_A", callID: "call_w" }, { args: { filePath: dir + "/new.txt", content: "n\n" } })
fs.writeFileSync(dir + "/new.txt", "n\n")
await p["tool.execute.after"]({ tool: "write", sessionID: "ses_A", callID: "call_w" }, { title: "new.txt", output: "", metadata: {} })
// A bash tool use whose tool.execute.after never comes.
await p["tool.execute.before"]({ tool: "bash", sessionID: "ses_A", callID: "call_b" }, { args: { command: "rm keep.txt" } })
fs.rmSync(dir + "/keep.txt")
await p.event({ event: { type: "session.idle", properties: { sessionID: "ses_A" } } })
// Failing closed: a tool use the hook cannot record is stopped.
let threw = false
try {
  await p["tool.execute.before"]({ tool: "write", sessionID: "ses_A", callID: "call_x" }, { args: {} })
} catch (err) { threw = true }
console.log(JSON.stringify({ threw, logs }))
`
	if err := os.WriteFile(driver, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, driver, filepath.Join(e.Repo.Dir, filepath.FromSlash(".opencode/plugin/gitguard.js")), e.Repo.Dir)
	hookLog := filepath.Join(t.TempDir(), "hook.log")
	cmd.Env = append(os.Environ(), "OPENCODE_TEST_HOOK=fail-closed", "OPENCODE_TEST_LOG="+hookLog)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"threw":true`) || !strings.Contains(string(out), "no filePath") {
		t.Errorf("failing closed did not stop the tool: %s", out)
	}
	logged, err := os.ReadFile(hookLog)
	if err != nil || !strings.Contains(string(logged), `"call_w"`) || strings.Contains(string(logged), `"call_r"`) {
		t.Errorf("hook runs (want call_w's, none of the read tool's): %v\n%s", err, logged)
	}
	w := e.Call("oc-ses_A", "call_w")
	e.CheckPatch(w, "new.txt", nil)
	b := e.Call("oc-ses_A", "call_b")
	if b.Ledger.Status != record.StatusUncertain {
		t.Errorf("bash without after: %s", b.Ledger.Status)
	}
	e.CheckPatch(b, "keep.txt", agenttest.S("keep\n"))
	if !e.Run("oc-ses_A").Checkpoint.RunFinished {
		t.Error("session.idle did not finish the run")
	}
	// The hook wrote nothing into the work tree: only the agent's changes
	// and the plugin file show.
	if st := e.Status(); st != " D keep.txt\n?? .opencode/\n?? new.txt" {
		t.Errorf("status:\n%s", st)
	}
	e.CheckUserState()
}

func TestOpencodeInitKeepsUserPlugin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, ".opencode", "plugin", "gitguard.js")
	_ = os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte("export const Mine = async () => ({})\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := opencode.Init(agent.InitOptions{Command: opencode.HookCommand, Dir: dir}); err == nil {
		t.Error("a plugin of the user's would be replaced")
	}
	// An older gitguard plugin is replaced; the same one again changes nothing.
	if err := os.WriteFile(p, []byte("// gitguard opencode plugin v0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ch, err := opencode.Init(agent.InitOptions{Command: opencode.HookCommand, Dir: dir})
	if err != nil || len(ch[0].Added) == 0 {
		t.Fatalf("upgrade: %v %v", ch, err)
	}
	if err := ch[0].Write(); err != nil {
		t.Fatal(err)
	}
	if ch, err := opencode.Init(agent.InitOptions{Command: opencode.HookCommand, Dir: dir}); err != nil || len(ch[0].Added) != 0 {
		t.Errorf("second init: %v %v", ch[0].Added, err)
	}
}
