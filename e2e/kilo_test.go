package e2e

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// kiloEnv points Kilo CLI's built-in Anthropic provider at the scripted
// server, allows every tool, and turns off what would reach the network.
// Kilo CLI is built on opencode: the same configuration, with KILO_ names.
// Its own snapshots are off: they write refs/kilo/ into the repository,
// which the checks would take for a change of the user's refs.
func kiloEnv(ws *workspace, url string) []string {
	cfg, _ := json.Marshal(map[string]any{
		"provider": map[string]any{"anthropic": map[string]any{
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "sk-ant-e2e-dummy"}}},
		"model":      "anthropic/claude-sonnet-4-5",
		"permission": map[string]any{"edit": "allow", "bash": "allow", "external_directory": "allow"},
		"autoupdate": false,
		"share":      "disabled",
		"snapshot":   false,
	})
	return append(append([]string(nil), ws.env...),
		"KILO_CONFIG_CONTENT="+string(cfg),
		"KILO_DISABLE_AUTOUPDATE=1",
		"KILO_DISABLE_MODELS_FETCH=1",
		"KILO_DISABLE_LSP_DOWNLOAD=1",
		"KILO_DISABLE_SHARE=1",
		"KILO_DISABLE_CLAUDE_CODE=1",
		"KILO_DISABLE_SESSION_INGEST=1",
		"KILO_DISABLE_CODEBASE_INDEXING=1",
		"KILO_TELEMETRY_LEVEL=off",
		"npm_config_prefer_offline=true",
	)
}

func runKilo(t testing.TB, ws *workspace, m *model) {
	srv := anthropicServer(m)
	defer srv.Close()
	runAgent(t, ws, m, kiloEnv(ws, srv.URL), pins["kilo"].bin, "run", "--auto", "Carry out the scripted changes.")
}

func TestKilo(t *testing.T) {
	requireSuite(t)
	ws := newWorkspace(t)
	t.Logf("kilo %s", cliVersion(t, "kilo", kiloEnv(ws, "http://127.0.0.1:9")))
	ws.gitguard(t, "init", "kilo", "--write")
	if _, err := filepath.Abs(filepath.Join(ws.dir, ".kilo", "plugin", "gitguard.js")); err != nil {
		t.Fatal(err)
	}
	m := newModel(t, ws.dir, scenario(opencodeVocab(ws.dir)))
	runKilo(t, ws, m)
	verifySession(t, ws, m, expect{byID: true, recorded: opencodeRecorded, shellExitHidden: true})
}
