// Package gemini is gitguard's adapter for Gemini CLI: its hook events
// (BeforeTool, AfterTool, SessionStart, SessionEnd) become agent.Events,
// and its .gemini/settings.json gets the hooks that run "gitguard hook
// gemini".
//
// A session is run gm-<session_id>. Gemini CLI sends no tool call id, so
// the BeforeTool and AfterTool events of one tool use are paired by tool
// and input (agent.Pairing, state under .git/gitguard/agents/) and the
// call gets an id built from the session and a counter: gm-<session>-<n>.
// write_file and replace capture the one file they name; run_shell_command
// captures the whole workspace. SessionEnd finishes the run; so does the
// start of another Gemini CLI session in the same work tree, since Gemini
// CLI does not wait for its SessionEnd hooks.
package gemini
