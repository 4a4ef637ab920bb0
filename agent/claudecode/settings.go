package claudecode

import (
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/internal/hookjson"
)

// HookMatcher selects every tool: a tool that writes files and that
// gitguard does not know (an MCP server's, one a newer Claude Code adds) is
// recorded as a whole-workspace call, and the hook answers read-only tools
// at once.
const HookMatcher = "*"

// HookCommand is the command the hooks run.
const HookCommand = "gitguard hook claude-code"

// HookEvents are the events the hook is registered for, in order;
// SessionStart and SessionEnd take no matcher. SessionStart starts the
// watch daemon before the session's first tool use.
var HookEvents = []string{PreToolUse, PostToolUse, PostToolUseFailure, SessionStart, SessionEnd}

func plan(command string) hookjson.Plan {
	return hookjson.Plan{
		Events: HookEvents,
		Group: func(ev string) hookjson.Group {
			g := hookjson.Group{Hooks: []hookjson.Hook{{Type: "command", Command: command}}}
			if ev != SessionStart && ev != SessionEnd {
				g.Matcher = HookMatcher
			}
			return g
		},
		Runs:        func(c string) bool { return strings.Contains(c, "hook claude-code") },
		OldMatchers: []string{"Write|Edit|MultiEdit|NotebookEdit|Bash"},
	}
}

// Fragment returns the "hooks" settings that run command, to print.
func Fragment(command string) ([]byte, error) {
	obj, err := hookjson.Fragment(plan(command))
	if err != nil {
		return nil, err
	}
	return hookjson.Indent(obj, "  ")
}

// SettingsRel is the settings file below the work tree: settings.json, or
// with local the settings.local.json that is not meant to be committed.
func SettingsRel(local bool) string {
	if local {
		return filepath.Join(".claude", "settings.local.json")
	}
	return filepath.Join(".claude", "settings.json")
}

// Init computes the changes "gitguard init claude-code --write" makes: the
// hooks merged into the settings file, and with o.MCP the gitguard MCP
// server added to the project's .mcp.json.
func Init(o agent.InitOptions) ([]agent.Change, error) {
	rel := SettingsRel(o.Local)
	c, err := agent.MergeFile(o.Dir, rel, func(old []byte) ([]byte, []string, error) {
		return hookjson.Merge(old, plan(o.Command))
	})
	if err != nil {
		return nil, err
	}
	out := []agent.Change{c}
	if o.MCP {
		m, err := agent.MergeFile(o.Dir, ".mcp.json", func(old []byte) ([]byte, []string, error) {
			return hookjson.MergeMCPServer(old, "mcpServers", "gitguard", hookjson.MCPServer(o.MCPCommand))
		})
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
