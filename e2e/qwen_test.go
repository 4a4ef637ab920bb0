package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// qwenUserSettings is ~/.qwen/settings.json: the Anthropic provider (its
// base URL and key come from the environment), no usage statistics, no
// update checks.
const qwenUserSettings = `{
  "security": {"auth": {"selectedType": "anthropic"}},
  "model": {"name": "claude-sonnet-4-5"},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"enableAutoUpdate": false, "disableAutoUpdate": true, "disableUpdateNag": true}
}
`

func writeQwenUserSettings(t testing.TB, ws *workspace) {
	t.Helper()
	dir := filepath.Join(ws.home, ".qwen")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(qwenUserSettings), 0o644); err != nil {
		t.Fatal(err)
	}
}

// qwenVocab spells the scenario with Qwen Code's tools.
func qwenVocab(dir string) vocab {
	abs := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	return vocab{
		write: func(p, content string) step {
			return step{tool: "write_file", args: map[string]any{"file_path": abs(p), "content": content}}
		},
		edit: func(p, old, new string) step {
			return step{tool: "edit", args: map[string]any{"file_path": abs(p), "old_string": old, "new_string": new}}
		},
		shell: func(command string) step {
			return step{tool: "run_shell_command", args: map[string]any{"command": command, "description": "scripted shell step",
				"is_background": false}}
		},
		read: func(p string) step {
			return step{tool: "read_file", args: map[string]any{"file_path": abs(p)}}
		},
	}
}

// qwenEnv points Qwen Code's Anthropic provider at the scripted server with
// a dummy key.
func qwenEnv(ws *workspace, url string) []string {
	return append(append([]string(nil), ws.env...),
		"ANTHROPIC_BASE_URL="+url,
		"ANTHROPIC_API_KEY=sk-ant-e2e-dummy",
		"ANTHROPIC_MODEL=claude-sonnet-4-5",
		"QWEN_CODE_NO_RELAUNCH=1",
		"DISABLE_TELEMETRY=1",
	)
}

func runQwen(t testing.TB, ws *workspace, m *model) {
	srv := anthropicServer(m)
	defer srv.Close()
	runAgent(t, ws, m, qwenEnv(ws, srv.URL), pins["qwen"].bin,
		"-p", "Carry out the scripted changes.", "--auth-type", "anthropic", "--yolo", "-m", "claude-sonnet-4-5")
}

func TestQwen(t *testing.T) {
	requireSuite(t)
	ws := newWorkspace(t)
	t.Logf("qwen %s", cliVersion(t, "qwen", qwenEnv(ws, "http://127.0.0.1:9")))
	writeQwenUserSettings(t, ws)
	ws.gitguard(t, "init", "qwen", "--write")
	requireHookClient(t, ws, filepath.Join(".qwen", "settings.json"), "gitguard-hook qwen")
	m := newModel(t, ws.dir, scenario(qwenVocab(ws.dir)))
	runQwen(t, ws, m)
	verifySession(t, ws, m, expect{byID: true, recorded: qwenRecorded, turnEnds: true})
}

// qwenRecorded is what gitguard records for a step: read_file is not.
// Qwen Code refuses a shell command that edits a file in place (sed -i)
// before the file was read in the session: PostToolUseFailure, VERSION
// unchanged, the call failed.
func qwenRecorded(s step) (tool, status string) {
	switch {
	case s.tool == "read_file":
		return "", ""
	case s.name == stepSed:
		return s.tool, "failed"
	}
	return s.tool, ""
}
