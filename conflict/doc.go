// Package conflict decides, for each path an agent touched, whether the
// agent's patch is in place, absent, or overwritten by someone else, and
// plans the three-way merge that undoes an agent's edit while keeping later
// edits by the user.
//
// Classification is pure (no I/O): the caller hashes the current file, so
// the cost is O(touched paths). Invariants: every path gets exactly one
// class; Applied holds iff current equals the patch's after state (mode
// included); Reapplyable iff it equals the before state and not the after;
// anything else is Conflicted and must only be rewritten by a merge that
// keeps the user's hunks.
package conflict
