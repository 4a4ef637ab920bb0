package kilo_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/internal/agenttest"
	"github.com/gitguard/gitguard/agent/kilo"
	"github.com/gitguard/gitguard/record"
)

func read(r io.Reader) (*agent.Event, error) { return kilo.Read(r, agent.ReadOptions{}) }

// TestKiloEvents: the plugin's events (opencode's) become calls of run
// kl-<sessionID>; a tool gitguard does not know is a whole-workspace call;
// read-only tools record nothing; session.idle finishes the run.
func TestKiloEvents(t *testing.T) {
	e := agenttest.New(t, map[string]string{"a.txt": "a\n"})
	w := `"tool":"write","args":{"filePath":"@REPO@/b.txt","content":"b\n"},"cwd":"@REPO@"`
	e.Hook(read, `{"event":"tool.execute.before","session_id":"ses_K","call_id":"call_w",`+w+`}`)
	e.Repo.Write("b.txt", "b\n")
	e.Hook(read, `{"event":"tool.execute.after","session_id":"ses_K","call_id":"call_w",`+w+`,"title":"b.txt","metadata":{}}`)
	e.CheckPatch(e.Call("kl-ses_K", "call_w"), "b.txt", nil)

	m := `"tool":"filesystem_write_file","args":{"path":"out/new.txt","content":"new\n"},"cwd":"@REPO@"`
	e.Hook(read, `{"event":"tool.execute.before","session_id":"ses_K","call_id":"call_m",`+m+`}`)
	e.Repo.Write("out/new.txt", "new\n")
	e.Hook(read, `{"event":"tool.execute.after","session_id":"ses_K","call_id":"call_m",`+m+`,"title":"","metadata":{}}`)
	c := e.Call("kl-ses_K", "call_m")
	if c.Ledger.ToolName != "filesystem_write_file" || c.Ledger.Status != record.StatusSucceeded || len(c.Ledger.Paths) != 0 {
		t.Errorf("MCP write: %q %s %v", c.Ledger.ToolName, c.Ledger.Status, c.Ledger.Paths)
	}
	e.CheckPatch(c, "out/new.txt", nil)
	for _, tool := range []string{"read", "grep", "glob", "list", "webfetch", "todowrite"} {
		e.HookReadOnly(read, `{"event":"tool.execute.before","session_id":"ses_K","call_id":"c","tool":"`+tool+`","args":{},"cwd":"@REPO@"}`)
	}
	ev, _ := e.Hook(read, `{"event":"session.idle","session_id":"ses_K","cwd":"@REPO@"}`)
	if ev.Agent != kilo.Name || !e.Run("kl-ses_K").Checkpoint.RunFinished {
		t.Errorf("session.idle: agent %q, run finished %v", ev.Agent, e.Run("kl-ses_K").Checkpoint.RunFinished)
	}
	e.CheckUserState()
}

// TestKiloInit writes the plugin where Kilo CLI loads plugins from
// (.kilo/plugin, not .opencode), running gitguard hook kilo, and leaves a
// file of the user's there alone.
func TestKiloInit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ch, err := kilo.Init(agent.InitOptions{Command: "gitguard hook kilo", Dir: dir, MCP: true, MCPCommand: "gitguard mcp"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ch {
		if err := c.Write(); err != nil {
			t.Fatal(err)
		}
	}
	plugin, err := os.ReadFile(filepath.Join(dir, ".kilo", "plugin", "gitguard.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"// gitguard kilo plugin v2", `const COMMAND = ["gitguard","hook","kilo"]`, `"read"`, "tool.execute.before"} {
		if !strings.Contains(string(plugin), want) {
			t.Errorf("plugin lacks %q:\n%s", want, plugin)
		}
	}
	if cfg, err := os.ReadFile(filepath.Join(dir, ".kilo", "kilo.json")); err != nil || !strings.Contains(string(cfg), `"gitguard"`) {
		t.Errorf(".kilo/kilo.json: %v\n%s", err, cfg)
	}
	mine := filepath.Join(dir, ".kilo", "plugin", "gitguard.js")
	if err := os.WriteFile(mine, []byte("export const Mine = async () => ({})\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := kilo.Init(agent.InitOptions{Command: "gitguard hook kilo", Dir: dir}); err == nil {
		t.Error("init replaced a plugin file of the user's")
	}
}
