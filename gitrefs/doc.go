// Package gitrefs owns gitguard's private ref namespace, refs/agent-checkpoints/.
//
// It is the only package that builds or parses those ref names. Invariants:
//   - every ref it writes lies under Namespace; nothing else is ever touched;
//   - every update is compare-and-swap on the old value, done by git itself
//     (`git update-ref`), so git's own .lock protocol serialises gitguard with
//     git and with other gitguard processes, and a reader never sees a torn ref;
//   - no reflog is written for these refs, so `prune` really frees checkpoints.
package gitrefs
