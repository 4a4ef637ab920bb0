package agent_test

import (
	"strings"
	"testing"

	"github.com/gitguard/gitguard/agent"
)

func TestIDs(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 300)
	for _, tc := range []struct {
		session, toolUse  string
		wantRun, wantCall string // "" means: only check validity
	}{
		{"3f1c2e9a-7b4d-4e2a-9c1f-0d8e6b5a4c3b", "toolu_01ABC", "cc-3f1c2e9a-7b4d-4e2a-9c1f-0d8e6b5a4c3b", "toolu_01ABC"},
		{"a/b c", "_weird id/..x", "", ""},
		{"ends.", ".lock", "", ""},
		{"x.lock", "..", "", ""},
		{long, long, "", ""},
		{"", "x", "cc-unknown", "x"},
		{"ünïcode", "ü", "", ""},
		{"-leading-dash", "-n", "", ""},
		{"new\nline", "new\nline", "", ""},
	} {
		run := agent.RunID("cc-", tc.session, "")
		if err := run.Validate(); err != nil {
			t.Errorf("run id of session %q: %v", tc.session, err)
		}
		if tc.wantRun != "" && string(run) != tc.wantRun {
			t.Errorf("run id of session %q = %q, want %q", tc.session, run, tc.wantRun)
		}
		call := agent.CallID(tc.toolUse)
		if err := call.Validate(); err != nil {
			t.Errorf("call id of tool use %q: %v", tc.toolUse, err)
		}
		if tc.wantCall != "" && string(call) != tc.wantCall {
			t.Errorf("call id of tool use %q = %q, want %q", tc.toolUse, call, tc.wantCall)
		}
	}
	// Distinct ids stay distinct after sanitizing.
	if a, b := agent.CallID("a/b"), agent.CallID("a b"); a == b {
		t.Errorf("a/b and 'a b' both map to %q", a)
	}
	if a, b := agent.RunID("cx-", "", "/t/1.jsonl"), agent.RunID("cx-", "", "/t/2.jsonl"); a == b {
		t.Errorf("two transcripts map to run %q", a)
	}
}

func TestToolResponseError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		resp   string
		failed bool
	}{
		{`{"stdout":"ok","stderr":"warning","interrupted":false}`, false},
		{`{"filePath":"/x","success":true}`, false},
		{`{"success":false}`, true},
		{`{"is_error":true}`, true},
		{`{"error":"boom"}`, true},
		{`{"error":{"message":"no match","type":"edit_no_occurrence_found"}}`, true},
		{`{"error":null,"llmContent":"ok"}`, false},
		{`{"interrupted":true}`, true},
		{`"plain text"`, false},
		{``, false},
	} {
		if _, got := agent.ToolResponseError([]byte(tc.resp)); got != tc.failed {
			t.Errorf("ToolResponseError(%s) = %v, want %v", tc.resp, got, tc.failed)
		}
	}
}
