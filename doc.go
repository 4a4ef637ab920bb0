// Package gitguard guards a git workspace while a coding agent edits it.
//
// It records checkpoints of the work tree, the index and HEAD as git objects
// under refs/agent-checkpoints/, records what each tool call of the agent
// did to files, tells per path whether the agent's edit is still in place,
// and undoes only the agent's edits, never the user's. Everything is stored
// in the repository's own object database; nothing the user owns (branches,
// HEAD, the index, the stash, config) is ever written.
//
// A Guard is opened on a directory inside a work tree:
//
//	g, err := gitguard.Open(ctx, ".", gitguard.Options{})
//	run, err := g.StartRun(ctx, "", gitguard.CheckpointOptions{})
//	_, err = g.CallStart(ctx, run.ID, gitguard.CallOptions{CallID: "call_1", Tool: "write_file", Paths: []string{"main.go"}})
//	// ... the agent writes main.go ...
//	_, err = g.CallFinish(ctx, run.ID, "call_1", gitguard.FinishOptions{})
//	report, err := g.Status(ctx, run.ID, gitguard.StatusOptions{})
//	result, err := g.Undo(ctx, run.ID, gitguard.UndoOptions{Call: "call_1"})
//
// BeginCall and DoCall wrap the same steps in a call handle; the runnable
// examples show them.
//
// Methods that record a checkpoint return the run's new tip. So that a
// call costs the same at the run's thousandth call as at its first, they
// read and return only the records they need: the tip of a call's start,
// capture or finish holds that call alone in Calls, the tip of a snapshot
// none. Status, Undo, Diff with a call, LedgerEntries and Resume read what
// they name through the run's index (see docs/FORMAT.md); Ledger, Diff of
// the whole run and ReadRun without named calls read every call.
//
// The types the API returns are defined here or in package record; the
// use cases' parts (attribution of changes between runs, patch making, safe
// writes, undo planning, maintenance, ...) live in packages under internal/
// and take what they need as parameters.
//
// The gitguard command is a thin layer over this package.
package gitguard
