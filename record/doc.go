// Package record holds gitguard's records as pure data: checkpoints, ledger
// entries, file patches, file states, HEAD, skipped paths, and the typed ids
// of runs and calls, each parsed and validated once; and the pure data the
// API returns about them: a recorded call (Call), history entries and run
// listings (Entry, RunInfo), damage (Damage), the class of a touched path
// (Class, not to be confused with State, a file's content and mode), the
// undo plan of a path (Plan, Action), the order of calls and the replay
// verdict of a ledger entry.
//
// Every other package speaks these types; record itself imports nothing of
// gitguard's, reads no files and runs no processes. Its validation methods
// are the reader's rules (docs/FORMAT.md): the store writes a record only if
// they accept it.
package record
