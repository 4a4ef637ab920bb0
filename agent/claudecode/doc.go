// Package claudecode is gitguard's adapter for Claude Code: its hook
// events (PreToolUse, PostToolUse, PostToolUseFailure, SessionEnd, and
// SessionStart, UserPromptSubmit and Stop, which close the calls a
// session left started) become agent.Events, and its settings file
// (.claude/settings.json) gets the hooks that run "gitguard hook
// claude-code".
//
// A session is run cc-<session_id>; a tool use is a call named after its
// tool_use_id. Write, Edit, MultiEdit and NotebookEdit capture the one
// file they name; Bash captures the whole workspace. Read-only tools are
// ignored without opening the repository; any other tool or event is
// ignored with a warning.
package claudecode
