// Package workspace records a work tree, its index and HEAD as git objects
// without touching anything the user owns.
//
// Invariants:
//   - the user's index file is only read, never written or locked (unlike
//     `git stash create` or `git add`, which refresh it);
//   - the work tree is only read: lstat, readdir, read;
//   - a snapshot is exact: modes, the executable bit, symlinks (as their
//     target), empty and binary files, any byte in a name; untracked files
//     are included and ignored ones excluded with git's own rules
//     (.gitignore at every level, $GIT_DIR/info/exclude, core.excludesFile);
//   - it is fast because it trusts only what git trusts: an index entry's blob
//     id is reused when the file's stat data matches and the entry is not
//     racily clean; files gitguard hashed before are remembered in a private
//     stat cache under the worktree's git dir; only folders whose tree is not
//     already in the object database are written.
//
// Folders are read with getdents and fstatat on Linux (dirread_linux.go)
// and with os.File.ReadDir and lstat elsewhere (dirread_portable.go), which
// the gitguard_portable build tag selects on Linux too, so that the code
// macOS and Windows run is checked against git here. Names follow git's
// core.ignoreCase and, on macOS, core.precomposeUnicode; core.fileMode and
// core.symlinks as false take modes from the index, as git does (the
// defaults on Windows). The watch daemon runs on Linux only.
//
// Nested repositories found untracked are recorded as gitlinks (their HEAD)
// and never descended into. Submodules are recorded as git add -A would: a
// gitlink to the commit checked out in them, the index's gitlink when they
// are not checked out, and absent when their folder is gone.
package workspace
