package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// geminiUserSettings is ~/.gemini/settings.json: the API key auth (with a
// base URL set, Gemini CLI would otherwise pick a "gateway" auth it then
// refuses), no usage statistics, no update checks.
const geminiUserSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}
`

func writeGeminiUserSettings(t testing.TB, ws *workspace) {
	t.Helper()
	dir := filepath.Join(ws.home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(geminiUserSettings), 0o644); err != nil {
		t.Fatal(err)
	}
}

// geminiVocab spells the scenario with Gemini CLI's tools.
func geminiVocab(dir string) vocab {
	abs := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	return vocab{
		write: func(p, content string) step {
			return step{tool: "write_file", args: map[string]any{"file_path": abs(p), "content": content}}
		},
		edit: func(p, old, new string) step {
			return step{tool: "replace", args: map[string]any{"file_path": abs(p), "old_string": old, "new_string": new,
				"instruction": "scripted edit"}}
		},
		shell: func(command string) step {
			return step{tool: "run_shell_command", args: map[string]any{"command": command, "description": "scripted shell step"}}
		},
	}
}

// geminiEnv points Gemini CLI at the scripted server with a dummy key.
func geminiEnv(ws *workspace, url string) []string {
	return append(append([]string(nil), ws.env...),
		"GOOGLE_GEMINI_BASE_URL="+url,
		"GEMINI_API_KEY=e2e-dummy-key",
		"GEMINI_CLI_TRUST_WORKSPACE=true",
	)
}

func runGemini(t testing.TB, ws *workspace, m *model) {
	srv := geminiServer(m)
	defer srv.Close()
	args := []string{"-p", "Carry out the scripted changes.", "--approval-mode", "yolo", "-m", "gemini-2.5-pro"}
	runAgent(t, ws, m, geminiEnv(ws, srv.URL), pins["gemini"].bin, args...)
}

func TestGemini(t *testing.T) {
	requireSuite(t)
	ws := newWorkspace(t)
	t.Logf("gemini %s", cliVersion(t, "gemini", geminiEnv(ws, "http://127.0.0.1:9")))
	writeGeminiUserSettings(t, ws)
	ws.gitguard(t, "init", "gemini", "--write")
	requireHookClient(t, ws, filepath.Join(".gemini", "settings.json"), "gitguard-hook gemini")
	m := newModel(t, ws.dir, scenario(geminiVocab(ws.dir)))
	runGemini(t, ws, m)
	verifySession(t, ws, m, expect{recorded: geminiRecorded})
}

// geminiRecorded is what gitguard records for a step: every tool use under
// its own name. A failed replace reports its error in AfterTool's
// tool_response; a shell command's exit status is in its output
// ("Exit Code: 3", returnDisplay "Command exited with code: 3").
func geminiRecorded(s step) (tool, status string) { return s.tool, "" }
