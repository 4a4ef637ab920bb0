// Package patchstore keeps a run's records in git: checkpoints, the tool
// ledger and the agent's file patches.
//
// A run is a chain of checkpoint commits under gitrefs.RunRef(run). Each
// commit's tree is
//
//	checkpoint.json            the Checkpoint record
//	index/                     the index as a tree
//	worktree/                  the work tree as a tree (untracked included)
//	calls/<x>/<y>/<call-id>/ledger.json    the call's LedgerEntry, latest status
//	calls/<x>/<y>/<call-id>/patches.json   its FilePatch entries, once finished
//	calls/<x>/<y>/<call-id>/before.json    path states captured at start
//	calls/<x>/<y>/<call-id>/others.json    changes other calls made in its window
//	calls/<x>/<y>/<call-id>/blobs/<id>     every blob a record names, so git keeps it
//	runindex/                  per path the calls naming it, every call's ledger entry
//
// where x and y are hex digits of the SHA-1 of the call id (fanout.go; runs
// of format version 1 have a flat calls/<call-id>/ and no runindex/, and
// still read). Readers ask for the calls they need (ReadRunCalls,
// LoadCalls) and the run index (PathIndex, LedgerEntries) rather than read
// every call.
//
// and its parents are the previous checkpoint and the HEAD commit of the
// moment, so everything a record names stays reachable.
//
// Invariants: objects are written (and, for Durable commits, fsynced) before
// the ref moves; the ref moves by compare-and-swap only, and a lost race is
// retried on the new tip, so concurrent writers never lose a checkpoint;
// every record read back is validated (format version, paths, sizes) and a
// bad one is reported as ErrCorrupt, never repaired or trusted.
package patchstore
