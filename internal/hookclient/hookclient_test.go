package hookclient

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

const event = `{"session_id":"s","cwd":"/work/repo","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"true"},"tool_use_id":"t"}`

func TestHandOffRequest(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		env        map[string]string
		event      string
		ok         bool
		failClosed bool
		tools      []string
	}{
		{name: "plain", args: []string{"claude-code"}, ok: true},
		{name: "fail closed", args: []string{"claude-code", "--fail-closed"}, ok: true, failClosed: true},
		{name: "fail closed, one dash", args: []string{"claude-code", "-fail-closed"}, ok: true, failClosed: true},
		{name: "fail closed from the environment", args: []string{"codex"}, env: map[string]string{"GITGUARD_FAIL_CLOSED": "1"}, ok: true, failClosed: true},
		{name: "the flag overrides the environment", args: []string{"codex", "--fail-closed=false"}, env: map[string]string{"GITGUARD_FAIL_CLOSED": "true"}, ok: true},
		{name: "workspace tools", args: []string{"gemini", "--workspace-tool", "a", "--workspace-tool=b"}, ok: true, tools: []string{"a", "b"}},
		{name: "watch idle", args: []string{"claude-code", "--watch-idle", "5m"}, ok: true},
		{name: "bad watch idle", args: []string{"claude-code", "--watch-idle", "-5m"}},
		{name: "bad watch idle in the environment", args: []string{"claude-code"}, env: map[string]string{"GITGUARD_WATCH_IDLE": "soon"}},
		{name: "bad fail closed in the environment", args: []string{"claude-code"}, env: map[string]string{"GITGUARD_FAIL_CLOSED": "maybe"}},
		{name: "bad fail closed value", args: []string{"claude-code", "--fail-closed=maybe"}},
		{name: "workspace tool without a name", args: []string{"claude-code", "--workspace-tool"}},
		{name: "no watch", args: []string{"claude-code", "--no-watch"}},
		{name: "help", args: []string{"claude-code", "--help"}},
		{name: "unknown flag", args: []string{"claude-code", "--bogus"}},
		{name: "an argument", args: []string{"claude-code", "extra"}},
		{name: "no agent", args: nil},
		{name: "a flag first", args: []string{"--fail-closed", "claude-code"}},
		{name: "no daemon wanted", args: []string{"claude-code"}, env: map[string]string{"GITGUARD_NO_DAEMON": "1"}},
		{name: "debugging", args: []string{"claude-code"}, env: map[string]string{"GITGUARD_DEBUG": "1"}},
		{name: "faults", args: []string{"claude-code"}, env: map[string]string{"GITGUARD_FAULT": "x"}},
		{name: "profiling", args: []string{"claude-code"}, env: map[string]string{"GITGUARD_CPUPROFILE": "/tmp/p"}},
		{name: "no cwd", args: []string{"claude-code"}, event: `{"hook_event_name":"PreToolUse"}`},
		{name: "relative cwd", args: []string{"claude-code"}, event: `{"cwd":"repo"}`},
		{name: "not JSON", args: []string{"claude-code"}, event: `PreToolUse`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := tc.event
			if ev == "" {
				ev = event
			}
			req, dir, ok := handOffRequest(tc.args, []byte(ev), func(k string) string { return tc.env[k] })
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if dir != "/work/repo" || req.Agent != tc.args[0] || string(req.Event) != ev || req.Env == "" {
				t.Errorf("request %+v for %s, want agent %s, the event and the environment's key", req, dir, tc.args[0])
			}
			if req.FailClosed != tc.failClosed || !slices.Equal(req.WorkspaceTools, tc.tools) {
				t.Errorf("fail closed %v, workspace tools %q; want %v, %q", req.FailClosed, req.WorkspaceTools, tc.failClosed, tc.tools)
			}
		})
	}
}

// TestNoGitguard runs the hook where there is no gitguard to leave an
// event to: it says so and lets the tool run, or blocks it failing closed.
func TestNoGitguard(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, tc := range []struct {
		args []string
		env  map[string]string
		exit int
		want string
	}{
		{args: []string{"claude-code"}, exit: 0, want: "gitguard: warning: gitguard is neither beside gitguard-hook nor on PATH; this tool use is not protected by gitguard\n"},
		{args: []string{"claude-code", "--fail-closed"}, exit: 2, want: "the tool use is blocked because gitguard fails closed"},
		{args: []string{"claude-code"}, env: map[string]string{"GITGUARD_FAIL_CLOSED": "1"}, exit: 2, want: "the tool use is blocked because gitguard fails closed"},
	} {
		var stdout, stderr bytes.Buffer
		// No daemon serves /work/repo: the event goes to gitguard.
		exit := Run(context.Background(), tc.args, strings.NewReader(event), &stdout, &stderr, func(k string) string { return tc.env[k] })
		if exit != tc.exit || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit %d and %q", tc.args, exit, stderr.String(), stdout.String(), tc.exit, tc.want)
		}
	}
}

// TestReadOnlyToolAnsweredAtOnce: a read-only tool's event is answered
// without asking a daemon or starting gitguard (here, gitguard cannot be
// found: starting it would warn); a tool --workspace-tool names is not.
func TestReadOnlyToolAnsweredAtOnce(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, tc := range []struct {
		args  []string
		event string
		quick bool
	}{
		{[]string{"claude-code"}, `{"hook_event_name":"PreToolUse","cwd":"/work/repo","tool_name":"Read","tool_input":{"file_path":"a"}}`, true},
		{[]string{"claude-code", "--fail-closed"}, `{"hook_event_name":"PostToolUse","cwd":"/work/repo","tool_name":"Grep","tool_input":{}}`, true},
		{[]string{"codex"}, `{"hook_event_name":"PreToolUse","cwd":"/work/repo","tool_name":"update_plan","tool_input":{}}`, true},
		{[]string{"gemini"}, `{"hook_event_name":"BeforeTool","cwd":"/work/repo","tool_name":"read_file","tool_input":{}}`, true},
		{[]string{"copilot"}, `{"cwd":"/work/repo","toolName":"view","toolArgs":"{}"}`, true},
		{[]string{"claude-code", "--workspace-tool", "Read"}, `{"hook_event_name":"PreToolUse","cwd":"/work/repo","tool_name":"Read","tool_input":{}}`, false},
		{[]string{"claude-code"}, `{"hook_event_name":"PreToolUse","cwd":"/work/repo","tool_name":"mcp__fs__write_file","tool_input":{}}`, false},
		{[]string{"claude-code"}, `{"hook_event_name":"PreToolUse","cwd":"/work/repo","tool_name":"Write","tool_input":{}}`, false},
		{[]string{"claude-code", "--watch-idle", "-1s"}, `{"hook_event_name":"PreToolUse","cwd":"/work/repo","tool_name":"Read","tool_input":{}}`, false},
	} {
		var stdout, stderr bytes.Buffer
		exit := Run(context.Background(), tc.args, strings.NewReader(tc.event), &stdout, &stderr, func(string) string { return "" })
		quick := exit == 0 && stderr.Len() == 0 && stdout.Len() == 0
		if quick != tc.quick {
			t.Errorf("%q %s: exit %d, stderr %q; want answered at once: %v", tc.args, tc.event, exit, stderr.String(), tc.quick)
		}
	}
}
