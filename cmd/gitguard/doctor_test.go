package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gitguard/gitguard/agent"
)

// The doctor's no-op event must be one the agent's adapter ignores
// without a warning: running the hook command with it records nothing.
// And every agent init offers is one the doctor knows.
func TestDoctorNoopEvents(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, a := range doctorAgents() {
		if a.spec == nil {
			t.Fatalf("a doctor agent names no agent spec")
		}
		known[a.spec.name] = true
		data, err := json.Marshal(a.noop("/work/tree"))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := a.spec.read(bytes.NewReader(data), nil)
		if err != nil {
			t.Errorf("%s: the no-op event does not read: %v", a.spec.name, err)
			continue
		}
		if ev.Kind != agent.Ignore || ev.Warning != "" {
			t.Errorf("%s: the no-op event is kind %v, warning %q; want ignored quietly", a.spec.name, ev.Kind, ev.Warning)
		}
	}
	for _, s := range agentSpecs {
		if !known[s.name] {
			t.Errorf("gitguard doctor does not know agent %s", s.name)
		}
	}
}

func TestHookCommands(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"json", `{"hooks":{"PreToolUse":[{"hooks":[{"command":"/opt/bin/gitguard-hook claude-code"}]}],` +
			`"PostToolUse":[{"hooks":[{"command":"/opt/bin/gitguard-hook claude-code"},{"command":"other"}]}]}}`,
			[]string{"/opt/bin/gitguard-hook claude-code"}},
		{"quoted", `{"a":"'/my dir/gitguard' hook claude-code --fail-closed","b":"\"x\" hook claude-code"}`,
			[]string{"'/my dir/gitguard' hook claude-code --fail-closed", `"x" hook claude-code`}},
		{"toml", "[[hooks.PreToolUse.hooks]]\ncommand = \"gitguard hook claude-code\"\n", []string{"gitguard hook claude-code"}},
		{"none", `{"hooks":{"PreToolUse":[{"hooks":[{"command":"gitguard hook codex"}]}]}}`, nil},
	} {
		got := hookCommands([]byte(tc.data), "claude-code")
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
			}
		}
	}
}

func TestWithin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path, dir string
		want      bool
	}{
		{"/a/b", "/a/b", true}, {"/a/b/c", "/a/b", true}, {"/a/bc", "/a/b", false}, {"/a", "/a/b", false},
		{"/a/b/", "/a/b", true}, {"/x/..y", "/x", true},
	} {
		if got := within(tc.path, tc.dir); got != tc.want {
			t.Errorf("within(%q, %q) = %v, want %v", tc.path, tc.dir, got, tc.want)
		}
	}
}

// Gemini CLI's and Qwen Code's trusted folders: the nearest folder listed
// decides; TRUST_PARENT trusts the folder above the one named.
func TestTrustedFolders(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	top := filepath.Join(home, "src", "proj")
	for _, tc := range []struct {
		name, folders string
		want          string
	}{
		{"none", ``, statusProblem},
		{"exact", `{"` + top + `": "TRUST_FOLDER"}`, statusOK},
		{"ancestor", `{"` + filepath.Join(home, "src") + `": "TRUST_FOLDER"}`, statusOK},
		{"parent", `{"` + filepath.Join(top, "sub") + `": "TRUST_PARENT"}`, statusOK},
		{"sibling", `{"` + filepath.Join(home, "src", "other") + `": "TRUST_FOLDER"}`, statusProblem},
		{"nearer no", `{"` + filepath.Join(home, "src") + `": "TRUST_FOLDER", "` + top + `": "DO_NOT_TRUST"}`, statusProblem},
	} {
		dir := filepath.Join(home, tc.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "trustedFolders.json")
		if tc.folders != "" {
			if err := os.WriteFile(path, []byte(tc.folders), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		d := &doctor{e: &env{getenv: func(string) string { return "" }}, home: home}
		if got := trustedFolders(d, doctorCheck{Name: "trust"}, "Gemini CLI", path, top); got.Status != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, got.Status, got.Message, tc.want)
		}
	}
}
