package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codexModel is a model name in Codex's built-in list: only those get its
// classic exec_command and apply_patch tools.
const codexModel = "gpt-5.5"

// codexVocab spells the scenario with Codex's tools: apply_patch (a free-form
// custom tool taking a patch) for files, exec_command for the shell.
func codexVocab() vocab {
	patch := func(body string) string { return "*** Begin Patch\n" + body + "*** End Patch\n" }
	return vocab{
		write: func(p, content string) step {
			var b strings.Builder
			for _, l := range strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n") {
				b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
			}
			return step{tool: "apply_patch", custom: patch("*** Add File: " + p + "\n" + b.String())}
		},
		edit: func(p, old, new string) step {
			return step{tool: "apply_patch", custom: patch("*** Update File: " + p + "\n@@\n-" + old + "\n+" + new + "\n")}
		},
		shell: func(command string) step {
			return step{tool: "exec_command", args: map[string]any{"cmd": command}}
		},
		moveAndDelete: func() step {
			return step{tool: "apply_patch", custom: patch("*** Update File: LICENSE\n*** Move to: docs/LICENSE.txt\n@@\n-MIT\n+MIT License\n" +
				"*** Delete File: NOTICE\n")}
		},
	}
}

// codexConfig is $CODEX_HOME/config.toml: the scripted server as the model
// provider, no approvals, no sandbox, nothing sent elsewhere, and the work
// tree trusted (as answering Codex's trust prompt does): Codex loads a
// project's .codex/config.toml, hooks included, only in a trusted project.
func codexConfig(url, project string) string {
	return fmt.Sprintf(`model = %q
model_provider = "e2e"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.e2e]
name = "scripted"
base_url = "%s/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[projects.%q]
trust_level = "trusted"
`, codexModel, url, project)
}

func codexEnv(ws *workspace) []string {
	return append(append([]string(nil), ws.env...),
		"CODEX_HOME="+filepath.Join(ws.home, ".codex"),
		"OPENAI_API_KEY=sk-e2e-dummy",
	)
}

func runCodex(t testing.TB, ws *workspace, m *model, wrap bool) {
	srv := openaiServer(m)
	defer srv.Close()
	home := filepath.Join(ws.home, ".codex")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(codexConfig(srv.URL, ws.dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"exec", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust",
		"Carry out the scripted changes."}
	name := pins["codex"].bin
	if wrap {
		args = append([]string{"run", "--", filepath.Join(cliBin, name)}, args...)
		name = gitguardBin
	}
	runAgent(t, ws, m, codexEnv(ws), name, args...)
}

func TestCodex(t *testing.T) {
	requireSuite(t)
	ws := newWorkspace(t)
	os.MkdirAll(filepath.Join(ws.home, ".codex"), 0o755)
	t.Logf("%s", cliVersion(t, "codex", codexEnv(ws)))
	ws.gitguard(t, "init", "codex", "--write")
	requireHookClient(t, ws, filepath.Join(".codex", "config.toml"), "gitguard-hook codex")
	m := newModel(t, ws.dir, scenario(codexVocab()))
	runCodex(t, ws, m, false)
	verifySession(t, ws, m, expect{byID: true, recorded: codexRecorded, turnEnds: true})
}

// TestCodexUnderRun runs the scenario with no hooks under 'gitguard run --':
// the whole session is one call. The user's edit comes after the session,
// since one made during it would count as the agent's.
func TestCodexUnderRun(t *testing.T) {
	requireSuite(t)
	ws := newWorkspace(t)
	steps, userEdit := withoutUserEdits(scenario(codexVocab()))
	m := newModel(t, ws.dir, steps)
	runCodex(t, ws, m, true)
	verifyWrapped(t, ws, m, pins["codex"].bin, userEdit)
}

// codexRecorded is what gitguard records for a step; Codex's hooks name
// exec_command "Bash". What Codex 0.171 sends limits the status:
//   - PostToolUse of Bash carries an empty tool_response, no exit status, so
//     a command that exits 3 can only be recorded as succeeded;
//   - an apply_patch that does not apply gets PreToolUse and no PostToolUse,
//     so the call must be closed when the session stops: failed or
//     uncertain, never left started.
func codexRecorded(s step) (tool, status string) {
	switch {
	case s.tool == "exec_command" && s.fails:
		return "Bash", "succeeded"
	case s.tool == "exec_command":
		return "Bash", ""
	case s.fails:
		return s.tool, "failed|uncertain"
	}
	return s.tool, ""
}
