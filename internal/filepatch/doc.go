// Package filepatch builds the file patches of tool calls: it captures the
// state of paths, diffs a whole-workspace call's start against a later
// snapshot, and stores each patch's text as a blob. It also names what a
// call changed of what gitguard sees (ViewChanges).
//
// Invariants: a patch names only blobs it stored or the snapshot stored
// first (objects before the records that name them); a path the records
// cannot carry losslessly gets no patch but a Skipped entry; a path the
// snapshot could not read is no evidence of a delete and gets no patch; a
// file over the size limit is patched by hash, never read.
//
// A path the records cannot carry losslessly (a name that is not UTF-8,
// which JSON would rewrite; a spelling of .git git refuses) is skipped
// loudly: listed with the reason in the checkpoint, in the call's ledger
// entry and by status, and left out of the patches. The rest of the call
// is recorded as usual, so one odd name never makes the run unreadable.
// Names git allows and JSON carries (newline, tab, backslash, a leading
// dash) are recorded as they are and quoted in text output.
package filepatch
