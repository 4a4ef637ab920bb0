package copilot

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/internal/hookjson"
)

// HookCommand is the command the hooks run.
const HookCommand = "gitguard hook copilot"

// HookMatcher selects every tool: a tool that writes files and that
// gitguard does not know (an MCP server's, one a newer Copilot CLI adds)
// is recorded as a whole-workspace call, and the hook answers read-only
// tools at once.
const HookMatcher = "*"

// HookEvents are the events the hook is registered for, in order.
var HookEvents = []string{PreToolUse, PostToolUse, PostToolUseFailure, SessionStart, SessionEnd}

// SettingsRel is the hooks file gitguard writes below the repository:
// Copilot CLI reads every .github/hooks/*.json.
var SettingsRel = filepath.Join(".github", "hooks", "gitguard.json")

func plan(command string) hookjson.Plan {
	return hookjson.Plan{
		Events: HookEvents,
		Group: func(ev string) hookjson.Group {
			g := hookjson.Group{Hooks: []hookjson.Hook{{Type: "command", Command: command}}}
			if ev == PreToolUse || ev == PostToolUse || ev == PostToolUseFailure {
				g.Matcher = HookMatcher
			}
			return g
		},
		Runs: func(c string) bool { return strings.Contains(c, "hook copilot") },
	}
}

// merge adds the hooks to a hooks file, with the "version": 1 Copilot CLI
// reads hooks files by.
func merge(old []byte, command string) ([]byte, []string, error) {
	out, added, err := hookjson.Merge(old, plan(command))
	if err != nil {
		return nil, nil, err
	}
	root, err := hookjson.ParseObject(out)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := root.Get("version"); ok {
		return out, added, nil
	}
	v := hookjson.NewObject()
	v.Set("version", json.RawMessage("1"))
	hooks, _ := root.Get("hooks")
	v.Set("hooks", hooks)
	out, err = hookjson.Indent(v, hookjson.DetectIndent(old))
	return out, added, err
}

// Fragment returns the hooks file that runs o.Command, to print.
func Fragment(o agent.InitOptions) ([]byte, error) {
	out, _, err := merge(nil, o.Command)
	return out, err
}

// Init computes the changes "gitguard init copilot --write" makes: the
// hooks merged into .github/hooks/gitguard.json below o.Dir, and with
// o.MCP the gitguard MCP server added to .mcp.json (which Copilot CLI
// reads in the repository).
func Init(o agent.InitOptions) ([]agent.Change, error) {
	return hookjson.Init(o, SettingsRel, func(old []byte) ([]byte, []string, error) { return merge(old, o.Command) }, ".mcp.json")
}
