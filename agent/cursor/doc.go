// Package cursor is gitguard's adapter for Cursor's agent: its hook events
// (.cursor/hooks.json: preToolUse, postToolUse, postToolUseFailure, stop,
// sessionStart, sessionEnd) become agent.Events, and "gitguard init cursor"
// writes those hooks.
//
// A conversation is run cu-<conversation_id>; a tool use is a call named
// after its tool_use_id. Edit tools capture the one file they name; the
// shell and every tool gitguard does not know (an MCP server's) capture the
// whole workspace; read-only tools are ignored without opening the
// repository. stop (the end of the agent loop) finishes the run; the next
// turn continues it.
//
// Cursor also runs the hooks of Claude Code's settings files
// (.claude/settings*.json): "all matching hooks from every source run".
// A project with both hands gitguard each tool use twice, once through
// `gitguard hook cursor` and once through `gitguard hook claude-code`.
// Both map it to the same run and call (package claudecode recognises
// Cursor's events by their conversation_id and cursor_version), so the
// first records it and the second changes nothing and says nothing
// (agent.Event.Repeated).
package cursor
