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

// HookEvents are the events the hook is registered for, in order; only
// the tool events take a matcher. SessionStart, UserPromptSubmit and Stop
// close the calls a session left started (see Event): they read the run's
// newest record and capture the work tree only when a call is open.
var HookEvents = []string{PreToolUse, PostToolUse, PostToolUseFailure, SessionEnd, SessionStart, UserPromptSubmit, Stop}

// toolEvents are the events that take the tool matcher.
var toolEvents = map[string]bool{PreToolUse: true, PostToolUse: true, PostToolUseFailure: true}

func plan(command string) hookjson.Plan {
	return hookjson.Plan{
		Events: HookEvents,
		Group: func(ev string) hookjson.Group {
			g := hookjson.Group{Hooks: []hookjson.Hook{{Type: "command", Command: command}}}
			if toolEvents[ev] {
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
	return hookjson.Init(o, SettingsRel(o.Local), func(old []byte) ([]byte, []string, error) {
		return hookjson.Merge(old, plan(o.Command))
	}, ".mcp.json")
}
