package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/config"
	"github.com/gitguard/gitguard/hooks"
	"github.com/gitguard/gitguard/record"
)

// Exit codes, as documented under EXIT STATUS in every command's help.
const (
	exitOK          = 0
	exitFound       = 1
	exitUsage       = 2
	exitIntegrity   = 3
	exitBusy        = 4
	exitInternal    = 5
	exitInterrupted = 130
)

// failure is an error as the user sees it.
type failure struct {
	err  error
	hint string
	code int
}

// foundError reports that a check found something (exit 1), after the
// command already printed what.
type foundError struct{ msg string }

func (e *foundError) Error() string { return e.msg }

// classify maps an error to its message, hint and exit code. It is the one
// place that knows how errors look to users.
func classify(err error) failure {
	var (
		found   *foundError
		refused *gitguard.RefusedError
	)
	var code *exitCodeError
	switch {
	case errors.As(err, &code):
		return failure{err, "", code.code}
	case errors.As(err, &found):
		return failure{err, "", exitFound}
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		return failure{errInterrupted, "nothing was half-written; run the command again to finish", exitInterrupted}
	case errors.Is(err, gitguard.ErrGitNotFound):
		return failure{err, "install git (2.31 or newer) and make sure it is on PATH", exitUsage}
	case errors.Is(err, gitguard.ErrNotRepository):
		return failure{err, "run gitguard inside a git work tree, or pass -C DIR", exitUsage}
	case errors.Is(err, gitguard.ErrBare):
		return failure{err, "gitguard guards a work tree; run it in a clone or a 'git worktree add' checkout", exitUsage}
	case errors.Is(err, gitguard.ErrNoWorkTree):
		return failure{err, "run gitguard from the work tree, not from inside .git", exitUsage}
	case errors.Is(err, gitguard.ErrNoWatcher):
		return failure{err, "the watch daemon runs on Linux only; elsewhere every snapshot walks the work tree, which is always correct", exitUsage}
	case errors.Is(err, gitguard.ErrDaemonRunning):
		return failure{err, "see it with 'gitguard watch status'; stop it with 'gitguard watch stop'", exitUsage}
	case errors.Is(err, gitguard.ErrBadRunID):
		return failure{err, "run ids are letters, digits, '.', '_' and '-'", exitUsage}
	case errors.Is(err, gitguard.ErrBadCallID):
		return failure{err, "call ids are letters and digits, then also '.', '_', '-', ':' and '@'", exitUsage}
	case errors.Is(err, gitguard.ErrUnknownRun):
		return failure{err, "list runs with 'gitguard runs'", exitUsage}
	case errors.Is(err, gitguard.ErrNoRun):
		return failure{err, "start one with 'gitguard start', or pass --run RUN (see 'gitguard runs')", exitUsage}
	case errors.Is(err, gitguard.ErrRunActive):
		return failure{err, "finish it with 'gitguard finish', or pass --run with that id", exitUsage}
	case errors.Is(err, gitguard.ErrUnknownCheckpoint):
		return failure{err, "list checkpoints with 'gitguard log'", exitUsage}
	case errors.Is(err, gitguard.ErrAmbiguous):
		return failure{err, "qualify it with the run, or use the commit id from 'gitguard log'", exitUsage}
	case errors.Is(err, gitguard.ErrBadGlob):
		return failure{err, "globs use doublestar syntax, e.g. 'src/**/*.go'", exitUsage}
	case errors.Is(err, gitguard.ErrUnrepairable):
		return failure{err, "no checkpoint of the run is intact; 'gitguard prune --run RUN' deletes it, after which git gc works again", exitIntegrity}
	case errors.Is(err, gitguard.ErrDamaged):
		return failure{err, "git maintenance or a disk error deleted objects the run names; 'gitguard fsck' says what is missing, 'gitguard fsck --repair' re-points the run at its newest intact checkpoint", exitIntegrity}
	// A refused fetch wraps ErrCorrupt: its own hint first.
	case errors.As(err, &refused):
		return failure{err, "nothing of the refused run(s) was kept; the remote's copy is corrupt or hostile: do not use it, and tell whoever pushed it", exitIntegrity}
	// Before ErrBadPath: an unsafe path read from a checkpoint is an
	// integrity failure (exit 3), not bad input on the command line.
	// A missing object that a record names is an integrity failure too.
	case errors.Is(err, record.ErrCorrupt), errors.Is(err, gitguard.ErrIndexFormat), errors.Is(err, gitguard.ErrMissingObject):
		return failure{err, "the recorded data failed validation and was not used; run 'git fsck' and, if it came from a remote, do not trust it", exitIntegrity}
	case errors.Is(err, record.ErrBadPath):
		return failure{err, "paths are relative to the top of the work tree and stay inside it", exitUsage}
	case errors.Is(err, gitguard.ErrUnknownCall):
		return failure{err, "list the run's calls with 'gitguard ledger'", exitUsage}
	case errors.Is(err, gitguard.ErrCallState):
		return failure{err, "see the call's state with 'gitguard ledger'", exitUsage}
	case errors.Is(err, gitguard.ErrOutsideWorkTree), errors.Is(err, gitguard.ErrSymlinkParent):
		return failure{err, "gitguard records and writes only paths inside the work tree, never through a symlinked folder", exitUsage}
	case errors.Is(err, gitguard.ErrNothingToUndo):
		return failure{err, "see what the agent changed with 'gitguard status' and the calls with 'gitguard ledger'", exitUsage}
	case errors.Is(err, errHookUnresolved):
		return failure{err, "put the program on that PATH, or pass --command with its absolute path; nothing was written", exitFound}
	case errors.Is(err, gitguard.ErrUsage):
		return failure{err, "see 'gitguard help' or 'gitguard COMMAND --help'", exitUsage}
	// Git integration: config, hooks, push/fetch, prune.
	case errors.Is(err, config.ErrInvalid):
		return failure{err, configHint(err), exitUsage}
	case errors.Is(err, hooks.ErrForeignHook):
		return failure{err, "gitguard only replaces or removes its own hook; look at the files named above (install --force chains to the current hook and keeps the saved one as a numbered backup)", exitUsage}
	case errors.Is(err, hooks.ErrNotHookFile):
		return failure{err, "move it out of the way, then run the command again", exitUsage}
	case errors.Is(err, gitguard.ErrBadRemote):
		return failure{err, "give a remote name (see 'git remote -v') or a URL", exitUsage}
	case errors.Is(err, gitguard.ErrRemote):
		return failure{err, "check the remote with 'git remote -v' and that 'git ls-remote REMOTE' works; nothing was changed", exitUsage}
	case errors.Is(err, gitguard.ErrDiverged):
		return failure{err, "your local run was kept; 'gitguard fetch --force' replaces it with the remote's (prune or push yours first to keep it)", exitFound}
	case errors.Is(err, errPushRejected):
		return failure{err, "nothing was overwritten; 'gitguard push --force' replaces the remote's run with yours only if you mean to drop what it added", exitFound}
	case errors.Is(err, errPushDeclined):
		return failure{err, "the host accepts only some refs, or only so many per push: push runs to a repository for runs only ('git config gitguard.remote URL'), or send fewer refs per push ('git config gitguard.pushBatch N' or --batch N); your branches and tags were not part of this push", exitFound}
	case errors.Is(err, gitguard.ErrBadSyncConfig):
		return failure{err, "fix it with 'git config KEY VALUE' or remove it with 'git config --unset KEY'", exitUsage}
	case errors.Is(err, gitguard.ErrRunExists):
		return failure{err, "choose another id for --as; list runs with 'gitguard runs' and 'gitguard runs --remote'", exitUsage}
	case errors.Is(err, gitguard.ErrNoSuchRun):
		return failure{err, "list runs with 'gitguard runs'", exitUsage}
	case errors.Is(err, gitguard.ErrNoPruneRule):
		return failure{err, "give --keep N, --older-than DURATION or --run RUN, or set [retention] in the committed .gitguard.toml (or gitguard.retentionKeep in git config)", exitUsage}
	case errors.Is(err, gitguard.ErrPruneActive):
		return failure{err, "list runs with 'gitguard runs'", exitUsage}
	case errors.Is(err, gitguard.ErrFileChanged):
		return failure{err, "a file kept changing while gitguard read it (another program is writing it); run the command again", exitBusy}
	case errors.Is(err, gitguard.ErrBusy), errors.Is(err, gitguard.ErrRefChanged):
		return failure{err, "another gitguard process is updating this run; run the command again", exitBusy}
	}
	return failure{err, "this looks like a bug in gitguard; run again with GITGUARD_DEBUG=1 and report the output", exitInternal}
}

// report prints err as "gitguard: msg" plus a tab-indented hint (or a JSON
// object with --json) on stderr and returns the exit code.
func report(e *env, err error) int {
	f := classify(err)
	var found *foundError
	var code *exitCodeError
	if (errors.As(err, &found) && found.msg == "") || errors.As(err, &code) {
		return f.code
	}
	if e.json && e.printedJSON && f.code == exitFound {
		return f.code // the document printed says what was found
	}
	if e.json {
		b, _ := json.Marshal(jsonError{Version: jsonVersion, Error: f.err.Error(), Hint: f.hint, ExitCode: f.code})
		fmt.Fprintf(e.stderr, "%s\n", b)
		return f.code
	}
	fmt.Fprintf(e.stderr, "gitguard: %s\n", oneLineMessage(f.err.Error()))
	if f.hint != "" {
		fmt.Fprintf(e.stderr, "\thint: %s\n", f.hint)
	}
	return f.code
}
