// Package qwen is gitguard's adapter for Qwen Code: its hook events, which
// have Claude Code's shape (PreToolUse, PostToolUse, PostToolUseFailure,
// SessionStart, Stop, SessionEnd), become agent.Events, and
// its settings file (.qwen/settings.json) gets the hooks that run
// "gitguard hook qwen".
//
// A session is run qw-<session_id>; a tool use is a call named after its
// tool_call_id, the model's id of the call (tool_use_id is made up per
// event pair). Stop, the end of a turn, finishes the run; a later turn
// continues it, and the watch daemon goes on over a turn's end until
// SessionEnd or its idle timeout. write_file and edit capture the one file they name;
// run_shell_command and every tool gitguard does not know (an MCP
// server's) capture the whole workspace. Read-only tools are ignored
// without opening the repository.
package qwen
