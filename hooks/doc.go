// Package hooks installs and removes gitguard's git pre-commit hook.
//
// Design: chaining, never clobbering. If a pre-commit hook exists, install
// renames it to pre-commit.gitguard-orig beside it (a rename keeps its bytes,
// mode and even its inode) and writes gitguard's hook, which runs the saved
// original first and then `gitguard check --staged`. Uninstall renames the
// original back, so it is byte-identical, with its mode, to what it was.
//
// Invariants: the user's hook is never deleted or rewritten, only renamed;
// gitguard's own hook is recognised by a marker line and is the only file
// ever written or removed; every write is a temp file plus rename, so a
// crash leaves either the old or the new hook (and a crash between the two
// renames of install leaves the original saved, which install and uninstall
// both finish correctly). Install and Uninstall are idempotent.
package hooks
