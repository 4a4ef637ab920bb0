package gemini

import (
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/internal/hookjson"
)

// HookCommand is the command the hooks run.
const HookCommand = "gitguard hook gemini"

// HookMatcher selects every tool (Gemini CLI matches "*" to all): a tool
// that writes files and that gitguard does not know (an MCP server's, one a
// newer Gemini CLI adds) is recorded as a whole-workspace call, and the
// hook answers read-only tools at once.
const HookMatcher = "*"

// HookEvents are the events the hook is registered for, in order.
var HookEvents = []string{BeforeTool, AfterTool, SessionStart, SessionEnd}

// SettingsRel is Gemini CLI's settings file below the project (or the
// home folder).
var SettingsRel = filepath.Join(".gemini", "settings.json")

func plan(command string) hookjson.Plan {
	return hookjson.Plan{
		Events: HookEvents,
		Group: func(ev string) hookjson.Group {
			g := hookjson.Group{Hooks: []hookjson.Hook{{Name: "gitguard", Type: "command", Command: command}}}
			if ev == BeforeTool || ev == AfterTool {
				g.Matcher = HookMatcher
			}
			return g
		},
		Runs:        func(c string) bool { return strings.Contains(c, "hook gemini") },
		OldMatchers: []string{"write_file|replace|run_shell_command"},
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

// Init computes the change "gitguard init gemini --write" makes to
// .gemini/settings.json below o.Dir.
func Init(o agent.InitOptions) ([]agent.Change, error) {
	c, err := agent.MergeFile(o.Dir, SettingsRel, func(old []byte) ([]byte, []string, error) { return merge(old, o) })
	if err != nil {
		return nil, err
	}
	return []agent.Change{c}, nil
}
