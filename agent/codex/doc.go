// Package codex is gitguard's adapter for the Codex CLI: its hook events
// (PreToolUse, PostToolUse, SessionStart, Stop) become agent.Events, and
// its config.toml gets [[hooks.EVENT]] tables that run "gitguard hook
// codex".
//
// A session is run cx-<session_id>; a tool use is a call named after its
// tool_use_id. Bash captures the whole workspace; apply_patch captures the
// files its patch names (added, updated, deleted, and the targets of
// moves). Stop, which Codex sends when a turn ends, finishes the run; the
// start of another Codex session in the same work tree does too. A later
// turn of the same session continues the run. The watch daemon the
// session's hook started goes on over a turn's end, for the next turn's
// tool uses, until its idle timeout (--watch-idle) stops it.
package codex
