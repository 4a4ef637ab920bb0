package hookjson_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/internal/hookjson"
)

var plan = hookjson.Plan{
	Events: []string{"Pre", "End"},
	Group: func(ev string) hookjson.Group {
		g := hookjson.Group{Hooks: []hookjson.Hook{{Type: "command", Command: "gitguard hook x"}}}
		if ev == "Pre" {
			g.Matcher = "Bash"
		}
		return g
	},
	Runs: func(c string) bool { return strings.Contains(c, "hook x") },
}

func TestMerge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		added    []string
		bad      bool
	}{
		{"empty file", "", []string{"Pre", "End"}, false},
		{"blank file", " \n", []string{"Pre", "End"}, false},
		{"hooks null", `{"hooks": null}`, []string{"Pre", "End"}, false},
		{"event null", `{"hooks": {"Pre": null}}`, []string{"Pre", "End"}, false},
		{"already there under another path", `{"hooks": {"Pre": [{"hooks": [{"type": "command", "command": "/opt/gitguard hook x --fail-closed"}]}]}}`, []string{"End"}, false},
		{"a group that is not an object is kept", `{"hooks": {"Pre": [42]}}`, []string{"Pre", "End"}, false},
		{"not an object", `[1, 2]`, nil, true},
		{"not JSON", `{"a": `, nil, true},
		{"text after", `{} {}`, nil, true},
		{"hooks not an object", `{"hooks": []}`, nil, true},
		{"event not a list", `{"hooks": {"End": {"hooks": []}}}`, nil, true},
	} {
		out, added, err := hookjson.Merge([]byte(tc.in), plan)
		if tc.bad {
			if !errors.Is(err, agent.ErrNotSettings) {
				t.Errorf("%s: err %v, want ErrNotSettings", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.added, added); diff != "" {
			t.Errorf("%s: added (-want +got):\n%s", tc.name, diff)
		}
		if !json.Valid(out) {
			t.Errorf("%s: invalid JSON out:\n%s", tc.name, out)
		}
		// Merging the result again adds nothing and changes nothing.
		again, added2, err := hookjson.Merge(out, plan)
		if err != nil || len(added2) != 0 || string(again) != string(out) {
			t.Errorf("%s: second merge added %v (err %v)", tc.name, added2, err)
		}
	}
}

func TestMergeKeepsOrderAndValues(t *testing.T) {
	t.Parallel()
	in := "{\n\t\"z\": 1.50,\n\t\"a\": {\"k\": \"\\u00e9\"},\n\t\"hooks\": {\"Other\": []}\n}\n"
	out, _, err := hookjson.Merge([]byte(in), plan)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if !strings.HasPrefix(s, "{\n\t\"z\": 1.50,\n\t\"a\": {\n\t\t\"k\": \"\\u00e9\"\n\t},\n\t\"hooks\": {\n\t\t\"Other\": [],") {
		t.Errorf("order, values or tabs not kept:\n%s", s)
	}
}

func TestMergeMCPServer(t *testing.T) {
	t.Parallel()
	out, added, err := hookjson.MergeMCPServer([]byte(`{"mcpServers": {"other": {"command": "x"}}}`), "mcpServers", "gitguard", hookjson.MCPServer("/bin/gitguard mcp"))
	if err != nil || len(added) != 1 {
		t.Fatalf("added %v, err %v", added, err)
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if g := doc.MCPServers["gitguard"]; g.Command != "/bin/gitguard" || len(g.Args) != 1 || g.Args[0] != "mcp" || doc.MCPServers["other"].Command != "x" {
		t.Errorf("merged: %s", out)
	}
	// The user's own entry of that name wins.
	mine := `{"mcpServers": {"gitguard": {"command": "my-wrapper"}}}`
	out, added, err = hookjson.MergeMCPServer([]byte(mine), "mcpServers", "gitguard", hookjson.MCPServer("gitguard mcp"))
	if err != nil || len(added) != 0 || !strings.Contains(string(out), "my-wrapper") {
		t.Errorf("replaced the user's entry: %s %v %v", out, added, err)
	}
}

// TestMergeWidensOldMatcher: a group that runs the hook under a matcher an
// older gitguard wrote gets the plan's matcher; a group of the user's with
// the same matcher is left alone; merging again changes nothing.
func TestMergeWidensOldMatcher(t *testing.T) {
	t.Parallel()
	p := hookjson.Plan{
		Events: []string{"PreToolUse", "SessionEnd"},
		Group: func(ev string) hookjson.Group {
			g := hookjson.Group{Hooks: []hookjson.Hook{{Type: "command", Command: "gitguard hook x"}}}
			if ev == "PreToolUse" {
				g.Matcher = "*"
			}
			return g
		},
		Runs:        func(c string) bool { return strings.Contains(c, "hook x") },
		OldMatchers: []string{"Write|Bash"},
	}
	in := `{"hooks": {"PreToolUse": [{"matcher": "Write|Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]},
	  {"matcher": "Write|Bash", "hooks": [{"type": "command", "command": "gitguard-hook x", "timeout": 5}]}],
	  "SessionEnd": [{"hooks": [{"type": "command", "command": "gitguard hook x"}]}]}}`
	out, added, err := hookjson.Merge([]byte(in), p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"PreToolUse (matcher *)"}, added); diff != "" {
		t.Errorf("added (-want +got):\n%s", diff)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	pre := doc.Hooks["PreToolUse"]
	if len(pre) != 2 || pre[0].Matcher != "Write|Bash" || pre[1].Matcher != "*" || pre[1].Hooks[0].Timeout != 5 {
		t.Errorf("merged:\n%s", out)
	}
	if again, added2, err := hookjson.Merge(out, p); err != nil || len(added2) != 0 || string(again) != string(out) {
		t.Errorf("second merge added %v (err %v)", added2, err)
	}
}
