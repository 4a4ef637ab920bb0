package main

import (
	"io"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/claudecode"
)

// agentSpecs are the agent adapters the CLI offers, in the order of help.
var agentSpecs = []*agentSpec{claudeCodeSpec()}

func claudeCodeSpec() *agentSpec {
	return &agentSpec{
		name: "claude-code", title: claudecode.Name,
		hookUsage: "record a Claude Code tool use (run from Claude Code's PreToolUse/PostToolUse hooks)",
		hookDescription: "Reads one Claude Code hook event (JSON) on stdin and records it: the session is\n" +
			"run cc-<session_id>, each tool use is a call named after its tool_use_id.\n" +
			"Write, Edit, MultiEdit and NotebookEdit capture the one file they name before\n" +
			"(PreToolUse) and after (PostToolUse, PostToolUseFailure); Bash captures the\n" +
			"whole workspace, so edits made by shell commands are recorded too. Read-only\n" +
			"tools are ignored without opening the repository. SessionEnd finishes the run.\n" +
			"Set it up with 'gitguard init claude-code --write'; undo one tool use with\n" +
			"'gitguard undo --call TOOL_USE_ID'.",
		read: func(r io.Reader, tools []string) (*agent.Event, error) {
			return claudecode.Read(r, claudecode.Options{WorkspaceTools: tools})
		},
		initUsage: "print or install the Claude Code hooks that record each tool use",
		initDescription: "Prints the \"hooks\" settings that make Claude Code run 'gitguard hook claude-code'\n" +
			"before and after every Write, Edit, MultiEdit, NotebookEdit and Bash tool use\n" +
			"(PreToolUse, PostToolUse, PostToolUseFailure) and at SessionEnd.\n" +
			"With --write the hooks are merged into .claude/settings.json at the top of the\n" +
			"work tree (.claude/settings.local.json with --local): other settings and other\n" +
			"hooks are kept, an event that already runs gitguard is left as it is, so running\n" +
			"it twice adds nothing. The file is replaced atomically (temp file + rename).\n" +
			"--mcp also adds the gitguard MCP server to the project's .mcp.json.",
		defaultCommand: claudecode.HookCommand,
		hasLocal:       true,
		fragment:       func(o agent.InitOptions) ([]byte, error) { return claudecode.Fragment(o.Command) },
		install:        claudecode.Init,
		next:           "Claude Code picks it up in its next session",
	}
}
