// Package filepatch builds the file patches of tool calls: it captures the
// state of paths, diffs a whole-workspace call's start against a later
// snapshot, and stores each patch's text as a blob.
//
// Invariants: a patch names only blobs it stored or the snapshot stored
// first (objects before the records that name them); a path the records
// cannot carry losslessly gets no patch but a Skipped entry; a path the
// snapshot could not read is no evidence of a delete and gets no patch; a
// file over the size limit is patched by hash, never read.
package filepatch
