// Package git is the only code in gitguard that runs the git command.
//
// gitguard reads and writes objects in process (package odb) because that is
// where the speed is, but it leaves to git what must agree with the user's git
// byte for byte: discovering the repository (worktrees, GIT_DIR, safe.directory),
// reading configuration, compare-and-swap ref updates under git's own .lock
// protocol, and the three-way content merge. It also tells which git is on
// PATH and whether it is new enough (Version). Every call sets LC_ALL=C and
// GIT_TERMINAL_PROMPT=0 so that output is parseable and nothing ever prompts.
package git
