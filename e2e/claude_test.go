package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeVocab spells the scenario with Claude Code's tools; they take
// absolute paths, and Edit needs the file read first.
func claudeVocab(dir string) vocab {
	abs := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	return vocab{
		write: func(p, content string) step {
			return step{tool: "Write", args: map[string]any{"file_path": abs(p), "content": content}}
		},
		edit: func(p, old, new string) step {
			return step{tool: "Edit", args: map[string]any{"file_path": abs(p), "old_string": old, "new_string": new}}
		},
		shell: func(command string) step {
			return step{tool: "Bash", args: map[string]any{"command": command, "description": "scripted shell step"}}
		},
		read: func(p string) step {
			return step{tool: "Read", args: map[string]any{"file_path": abs(p)}}
		},
	}
}

// claudeEnv points Claude Code at the scripted server with a dummy key.
// IS_SANDBOX=1 lets it bypass permissions as root.
func claudeEnv(ws *workspace, url string) []string {
	return append(append([]string(nil), ws.env...),
		"ANTHROPIC_BASE_URL="+url,
		"ANTHROPIC_API_KEY=sk-ant-e2e-dummy",
		"IS_SANDBOX=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	)
}

func runClaude(t testing.TB, ws *workspace, m *model) {
	srv := anthropicServer(m)
	defer srv.Close()
	runAgent(t, ws, m, claudeEnv(ws, srv.URL), pins["claude-code"].bin,
		"-p", "Carry out the scripted changes.", "--permission-mode", "bypassPermissions",
		"--model", "claude-sonnet-4-5")
}

func TestClaudeCode(t *testing.T) {
	requireSuite(t)
	ws := newWorkspace(t)
	t.Logf("%s", cliVersion(t, "claude-code", claudeEnv(ws, "http://127.0.0.1:9")))
	ws.gitguard(t, "init", "claude-code", "--write")
	requireHookClient(t, ws, filepath.Join(".claude", "settings.json"), "gitguard-hook claude-code")
	m := newModel(t, ws.dir, scenario(claudeVocab(ws.dir)))
	runClaude(t, ws, m)
	verifySession(t, ws, m, expect{byID: true, recorded: claudeRecorded})
}

// requireHookClient fails unless init installed the hook client, which the
// suite builds beside gitguard, as command in the settings file rel: the
// agent's hooks then run through it.
func requireHookClient(t *testing.T, ws *workspace, rel, command string) {
	t.Helper()
	if os.Getenv("GITGUARD_E2E_GITGUARD") != "" {
		return // a gitguard built elsewhere may have no client beside it
	}
	data, err := os.ReadFile(filepath.Join(ws.dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), command) {
		t.Fatalf("%s does not run %q:\n%s", rel, command, data)
	}
}

// claudeRecorded is the tool gitguard records for a step. Read is not
// hooked. An Edit whose old_string is missing fails Claude Code's input
// validation, which runs before any hook: the model gets the error and no
// hook event is sent, so there is no call (and no change) to record.
func claudeRecorded(s step) (tool, status string) {
	if s.tool == "Read" || s.name == stepBadEdit {
		return "", ""
	}
	return s.tool, ""
}
