// Package gitrefs owns gitguard's private ref namespace, refs/agent-checkpoints/.
//
// It is the only package that builds or parses those ref names. Invariants:
//   - every ref it writes lies under Namespace; nothing else is ever touched;
//   - every update is compare-and-swap on the old value under git's own
//     <ref>.lock protocol (created with O_EXCL, the old value checked under
//     it, the new one fsynced and renamed into place, as git's files backend
//     does; `git update-ref` where that backend is not the one in use), so
//     gitguard is serialised with git and with other gitguard processes, a
//     reader never sees a torn ref, and an update is durable when it returns;
//   - a lock left by a killed writer is broken only when no gitguard process
//     can hold it and git packs no refs (see stalelock.go);
//   - no reflog is written for these refs, so `prune` really frees checkpoints.
package gitrefs
