package gitguard

import (
	"context"
	"encoding/json"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/workspace"
)

// DaemonOpHandler answers one request of an op a watch daemon serves
// besides snapshots (see Daemon.Handle).
type DaemonOpHandler = workspace.OpHandler

// ErrDaemonRefused wraps the reason a watch daemon gave for not answering
// an op: it does not serve it, it serves another work tree, or the op's
// handler failed.
var ErrDaemonRefused = workspace.ErrDaemonRefused

// AskDaemon hands op and its payload to the watch daemon of the work tree
// containing dir and returns its answer, without opening the repository:
// finding it costs a few stats. It returns ErrNoDaemon when no daemon
// serves the work tree, and also when finding the repository would take
// git (a GIT_DIR-like variable is set, the layout is unusual): the caller
// then does the work itself.
func AskDaemon(ctx context.Context, dir string, getenv func(string) string, op string, payload json.RawMessage) (json.RawMessage, error) {
	repo, ok := git.FindRepo(dir, getenv)
	if !ok {
		return nil, ErrNoDaemon
	}
	return workspace.AskDaemon(ctx, workspace.DaemonSocketIn(repo.GitDir), repo.WorkTree, op, payload)
}
