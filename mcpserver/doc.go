// Package mcpserver is gitguard as an MCP server: what a model may safely
// do about its own run, over the official Go SDK.
//
// Tools: status, diff, ledger, resume (also the resource gitguard://resume),
// checkpoint, undo and redo. The server serves one run: the one given, or
// the work tree's active run when it first needs one, kept from then on.
// No tool takes a run, so none reaches another run's calls.
//
// Invariants:
//   - Reading tools write nothing; resume never marks calls uncertain (the
//     agent's calls may be running).
//   - checkpoint writes only under refs/agent-checkpoints/.
//   - undo and redo are dry runs unless called with confirm: true; then they
//     write only the files of the calls they revert, as 'gitguard undo' does,
//     and record themselves as calls so they can be reverted in turn.
//   - Requests are served one at a time (a Guard is not for concurrent use),
//     each on the repository opened afresh.
package mcpserver
