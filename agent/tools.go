package agent

import (
	"encoding/json"

	"github.com/gitguard/gitguard/internal/hookwire"
)

// ReadOnlyTool reports whether the tool of the agent named name (as in
// `gitguard hook NAME`) is known to change no file: its tool uses are
// ignored without opening the repository. Every other tool the adapter
// does not know is recorded as a whole-workspace call, so that a tool that
// writes files (an MCP server's, one a newer agent adds) is never seen only
// later as a change made outside any call.
func ReadOnlyTool(name, tool string) bool { return hookwire.ReadOnlyTool(name, tool) }

// ReadOnlyEvent reports whether data, a hook event of the agent named
// name, is a tool use of a read-only tool (not one of workspaceTools): the
// hook answers it at once, without the repository or the watch daemon.
func ReadOnlyEvent(name string, data []byte, workspaceTools []string) bool {
	return hookwire.ReadOnlyEvent(name, data, workspaceTools)
}

// ToolSummary is the ledger's input of a whole-workspace tool use of a
// tool the adapter does not know: the tool's name and its input as
// compact JSON, cut short.
func ToolSummary(tool string, input map[string]any) string {
	if cmd := StringField(input, "command", "cmd"); cmd != "" {
		return Summarize(cmd)
	}
	if len(input) == 0 {
		return tool
	}
	data, err := json.Marshal(input)
	if err != nil {
		return tool
	}
	return Summarize(tool + " " + string(data))
}

// ReadOnlyTools lists the read-only tools of the agent named name, sorted,
// for a plugin that answers them without starting the hook.
func ReadOnlyTools(name string) []string { return hookwire.ReadOnlyTools(name) }
