package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// warmOpencodePlugins puts into .opencode/ what opencode would install there
// with npm before loading gitguard's plugin, as it is after a project's first
// opencode session.
func warmOpencodePlugins(t testing.TB, ws *workspace) {
	t.Helper()
	src := filepath.Join(cliBin, "..", "..", opencodePluginDeps) + "/."
	if out, err := exec.Command("cp", "-a", src, filepath.Join(ws.dir, ".opencode")).CombinedOutput(); err != nil {
		t.Fatalf("cp -a %s .opencode: %v\n%s", src, err, out)
	}
}

// opencodeVocab spells the scenario with opencode's tools; like Claude
// Code's, its edits need the file read first.
func opencodeVocab(dir string) vocab {
	abs := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	return vocab{
		write: func(p, content string) step {
			return step{tool: "write", args: map[string]any{"filePath": abs(p), "content": content}}
		},
		edit: func(p, old, new string) step {
			return step{tool: "edit", args: map[string]any{"filePath": abs(p), "oldString": old, "newString": new}}
		},
		shell: func(command string) step {
			return step{tool: "bash", args: map[string]any{"command": command, "description": "scripted shell step"}}
		},
		read: func(p string) step {
			return step{tool: "read", args: map[string]any{"filePath": abs(p)}}
		},
	}
}

// opencodeEnv points opencode's built-in Anthropic provider at the scripted
// server, allows every tool, and turns off what would reach the network.
func opencodeEnv(ws *workspace, url string) []string {
	cfg, _ := json.Marshal(map[string]any{
		"provider": map[string]any{"anthropic": map[string]any{
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "sk-ant-e2e-dummy"}}},
		"model":      "anthropic/claude-sonnet-4-5",
		"permission": map[string]any{"edit": "allow", "bash": "allow", "external_directory": "allow"},
		"autoupdate": false,
		"share":      "disabled",
	})
	return append(append([]string(nil), ws.env...),
		"OPENCODE_CONFIG_CONTENT="+string(cfg),
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1",
		"npm_config_cache="+filepath.Join(cliBin, "..", "..", opencodeNpmCache),
		"npm_config_prefer_offline=true",
	)
}

func runOpencode(t testing.TB, ws *workspace, m *model) {
	srv := anthropicServer(m)
	defer srv.Close()
	runAgent(t, ws, m, opencodeEnv(ws, srv.URL), pins["opencode"].bin, "run", "Carry out the scripted changes.")
}

// opencodeRecorded is what gitguard records for a step: read is not
// recorded. A tool that throws (an edit whose oldString is missing) gets
// tool.execute.before and no tool.execute.after, so the plugin finishes it
// at session.idle as uncertain. A bash command's exit status reaches the
// plugin in the tool's metadata (the model only sees its output).
func opencodeRecorded(s step) (tool, status string) {
	switch {
	case s.tool == "read":
		return "", ""
	case s.name == stepBadEdit:
		return s.tool, "failed|uncertain"
	}
	return s.tool, ""
}

func TestOpencode(t *testing.T) {
	requireSuite(t)
	ws := newWorkspace(t)
	t.Logf("opencode %s", cliVersion(t, "opencode", opencodeEnv(ws, "http://127.0.0.1:9")))
	ws.gitguard(t, "init", "opencode", "--write")
	warmOpencodePlugins(t, ws)
	m := newModel(t, ws.dir, scenario(opencodeVocab(ws.dir)))
	runOpencode(t, ws, m)
	verifySession(t, ws, m, expect{byID: true, recorded: opencodeRecorded, shellExitHidden: true})
}
