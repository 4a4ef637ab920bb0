// Package copilot is gitguard's adapter for GitHub Copilot CLI: the hook
// events of .github/hooks/gitguard.json become agent.Events. The hooks
// are configured under Claude Code's event names (PreToolUse, PostToolUse,
// PostToolUseFailure, SessionStart, SessionEnd), for which Copilot CLI
// sends Claude Code's payload shape (hook_event_name, session_id,
// tool_name with Claude Code's tool names, tool_input) rather than its own
// camelCase one, which names neither the event nor the session.
//
// A session is run cp-<session_id>. Copilot CLI sends no tool call id, so
// each PostToolUse is paired with the oldest open PreToolUse of the same
// tool and input (as for Gemini CLI), and the call is
// cp-<first 8 characters of the session>-<n>. A pre event need not be
// followed by a post event (a tool denied or interrupted): SessionEnd,
// which ends every prompt-mode turn, finishes such a call as uncertain.
// Write and Edit capture the one file they name; Bash and every tool
// gitguard does not know (an MCP server's) capture the whole workspace;
// read-only tools are ignored without opening the repository.
package copilot
