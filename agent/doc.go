// Package agent turns coding agents' hook events into gitguard calls.
//
// Each agent has its own package below this one (claudecode, codex,
// gemini, opencode): it reads the agent's hook payload into an Event and
// knows the agent's settings file. This package holds what they share:
// Handle records an Event through the root gitguard API (a session is a
// run, a tool use is a call), Pairing gives call ids to agents that send
// none, and the helpers that turn an agent's ids into gitguard's. The
// session policy is in one file, session.go: which call id a tool use
// without one gets, when a session's run continues or ends (another
// session's run with it), and the files hooks keep under
// .git/gitguard/agents/.
//
// Invariants:
//   - A hook never writes the work tree, HEAD, the index or any user ref; its
//     only state outside refs/agent-checkpoints/ lives under the work tree's
//     private state folder (.git/gitguard/agents/).
//   - An event or tool the adapter does not know is never silent: the Event
//     carries a Warning, which the caller prints once (and fails on when told
//     to fail closed).
//   - Handle writes nothing for events that record nothing, and does not even
//     open the repository for them.
package agent
