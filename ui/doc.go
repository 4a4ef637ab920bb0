// Package ui is gitguard's interactive rewind: a terminal view of one run's
// tool calls, newest first, with each call's diff, the state of every path it
// touched and what undoing it would do, and keys that undo a call, undo back
// to a call, or redo an undo.
//
// It reaches the repository only through the root package's API (Ledger,
// InspectCall, Undo and Redo, Runs), never through its parts. Reads are lazy:
// the ledger is read once when a run opens, and a call's patches, path states
// and undo plan are read only when the call is on screen, then cached. A poll
// of the run's tip and of the visible calls' paths notices work-tree changes.
//
// Invariants: nothing is written without one confirmation showing the plan
// first, every write goes through gitguard.Undo or gitguard.Redo (so it keeps
// the user's edits and can itself be undone), and states are always shown as
// words, so the view reads the same without colour (NO_COLOR).
package ui
