package qwen

import (
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/internal/hookjson"
)

// HookCommand is the command the hooks run.
const HookCommand = "gitguard hook qwen"

// HookMatcher selects every tool: a tool that writes files and that
// gitguard does not know (an MCP server's, one a newer Qwen Code adds) is
// recorded as a whole-workspace call, and the hook answers read-only tools
// at once.
const HookMatcher = "*"

// HookEvents are the events the hook is registered for, in order.
// Stop ends every turn (also with -p, where Qwen Code 0.24 sends no
// SessionEnd); a later turn continues the run.
var HookEvents = []string{PreToolUse, PostToolUse, PostToolUseFailure, SessionStart, Stop, SessionEnd}

// SettingsRel is Qwen Code's settings file below the project (or the home
// folder).
var SettingsRel = filepath.Join(".qwen", "settings.json")

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
		Runs: func(c string) bool { return strings.Contains(c, "hook qwen") },
	}
}

// Fragment returns the settings that run o.Command (and with o.MCP the
// gitguard MCP server), to print.
func Fragment(o agent.InitOptions) ([]byte, error) {
	out, _, err := merge(nil, o)
	return out, err
}

func merge(old []byte, o agent.InitOptions) ([]byte, []string, error) {
	return hookjson.MergeWithMCP(old, plan(o.Command), o)
}

// Init computes the change "gitguard init qwen --write" makes to
// .qwen/settings.json below o.Dir.
func Init(o agent.InitOptions) ([]agent.Change, error) {
	c, err := agent.MergeFile(o.Dir, SettingsRel, func(old []byte) ([]byte, []string, error) { return merge(old, o) })
	if err != nil {
		return nil, err
	}
	return []agent.Change{c}, nil
}
