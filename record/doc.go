// Package record holds gitguard's records as pure data: checkpoints, ledger
// entries, file patches, file states, HEAD, skipped paths, and the typed ids
// of runs and calls, each parsed and validated once.
//
// Every other package speaks these types; record itself imports nothing of
// gitguard's, reads no files and runs no processes. Its validation methods
// are the reader's rules (docs/FORMAT.md): the store writes a record only if
// they accept it.
package record
