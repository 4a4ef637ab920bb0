package e2e

import (
	"path/filepath"
	"testing"
)

// copilotVocab spells the scenario with Copilot CLI's tools (create, edit,
// bash, view); the hooks get Claude Code's names for them (Write, Edit,
// Bash, Read).
func copilotVocab(dir string) vocab {
	abs := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	return vocab{
		write: func(p, content string) step {
			return step{tool: "create", args: map[string]any{"path": abs(p), "file_text": content}}
		},
		edit: func(p, old, new string) step {
			return step{tool: "edit", args: map[string]any{"path": abs(p), "old_str": old, "new_str": new}}
		},
		shell: func(command string) step {
			return step{tool: "bash", args: map[string]any{"command": command, "description": "scripted shell step",
				"mode": "sync", "initial_wait": 30}}
		},
		read: func(p string) step {
			return step{tool: "view", args: map[string]any{"path": abs(p)}}
		},
	}
}

// copilotEnv points Copilot CLI's own provider support (BYOK) at the
// scripted Anthropic server: no GitHub sign-in, nothing else reached.
func copilotEnv(ws *workspace, url string) []string {
	return append(append([]string(nil), ws.env...),
		"COPILOT_PROVIDER_BASE_URL="+url,
		"COPILOT_PROVIDER_TYPE=anthropic",
		"COPILOT_PROVIDER_API_KEY=sk-ant-e2e-dummy",
		"COPILOT_MODEL=claude-sonnet-4.5",
		"COPILOT_OFFLINE=true",
		"COPILOT_AUTO_UPDATE=false",
	)
}

func runCopilot(t testing.TB, ws *workspace, m *model) {
	srv := anthropicServer(m)
	defer srv.Close()
	// --trust-folder: repository hooks load only in a trusted folder.
	runAgent(t, ws, m, copilotEnv(ws, srv.URL), pins["copilot"].bin, "-p", "Carry out the scripted changes.",
		"--allow-all", "--trust-folder", "--no-ask-user", "--disable-client-telemetry")
}

func TestCopilot(t *testing.T) {
	requireSuite(t)
	ws := newWorkspace(t)
	t.Logf("%s", cliVersion(t, "copilot", copilotEnv(ws, "http://127.0.0.1:9")))
	ws.gitguard(t, "init", "copilot", "--write")
	requireHookClient(t, ws, filepath.Join(".github", "hooks", "gitguard.json"), "gitguard-hook copilot")
	m := newModel(t, ws.dir, scenario(copilotVocab(ws.dir)))
	runCopilot(t, ws, m)
	verifySession(t, ws, m, expect{recorded: copilotRecorded, shellExitHidden: true, editErrorHidden: true})
}

// copilotRecorded is what gitguard records for a step, under the Claude
// Code name Copilot CLI gives the hooks: view (Read) is not recorded. A
// failed edit gets PostToolUseFailure. A shell command's exit status is
// only in its output ("<shellId: 3 completed with exit code 3>"), which
// the tool reports as a success to the model; a failed edit's error too
// reaches the model as a plain tool result.
func copilotRecorded(s step) (tool, status string) {
	switch s.tool {
	case "view":
		return "", ""
	case "create":
		return "Write", ""
	case "edit":
		return "Edit", ""
	}
	return "Bash", ""
}
