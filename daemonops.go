package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/hookwire"
	"github.com/gitguard/gitguard/workspace"
)

// DaemonOpHandler answers one request of an op a watch daemon serves
// besides snapshots (see Daemon.Handle).
type DaemonOpHandler = workspace.OpHandler

// ErrDaemonRefused wraps the reason a watch daemon gave for not answering
// an op: it does not serve it, it serves another work tree, or the op's
// handler failed.
var ErrDaemonRefused = workspace.ErrDaemonRefused

// HookRequest is an agent hook event as a hook process hands it to the
// watch daemon, which records it when it runs a handler for HookOp.
type HookRequest = hookwire.Request

// HookAnswer is what the daemon answers a HookRequest with: what the hook
// prints on stderr and the status it exits with.
type HookAnswer = hookwire.Answer

// HookOp is the daemon op that records agent hook events.
const HookOp = hookwire.Op

// HookEnvKey sums up the environment a daemon must share with a hook to
// record its events: git's and gitguard's variables, where configuration
// is found and which git runs (HookRequest carries the hook's own
// switches).
func HookEnvKey() string { return hookwire.EnvKey() }

// HandOffHook hands req to the watch daemon of the work tree containing
// dir, found without opening the repository. It returns ErrNoDaemon when
// none serves it (or finding it would take git: a GIT_DIR-like variable,
// an unusual layout) and ErrDaemonRefused (wrapped) when the daemon leaves
// the event to the hook: the caller then records it itself.
func HandOffHook(ctx context.Context, dir string, getenv func(string) string, req HookRequest) (HookAnswer, error) {
	return hookwire.HandOff(ctx, dir, getenv, req)
}

// WorkTreeOf returns the top of the work tree containing dir as
// HandOffHook finds it; false when that would take git.
func WorkTreeOf(dir string, getenv func(string) string) (string, bool) {
	repo, ok := git.FindRepo(dir, getenv)
	if !ok {
		return "", false
	}
	return repo.WorkTree, true
}
