// Package maintenance deletes whole runs (prune), takes back the space of
// gitguard's own packs, runs git gc, and checks and repairs damaged runs
// (fsck).
//
// Invariants: only refs under refs/agent-checkpoints/ are deleted or moved,
// each by compare-and-swap in one ref transaction, never the work tree's
// active run unless named; the user's objects are never rewritten: only
// packs on gitguard's own list that nobody freshened since are, keeping a
// grace period for a writer between its pack and its ref; git gc runs with
// reflog expiry off, so the user's reflogs are untouched; a damaged run is
// re-pointed only at a checkpoint whose whole history is intact.
package maintenance
