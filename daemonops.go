package gitguard

import (
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/workspace"
)

// ErrDaemonRefused wraps the reason a watch daemon gave for not answering
// an op registered with Daemon.Handle: it does not serve it, it serves
// another work tree, or the op's handler failed.
var ErrDaemonRefused = workspace.ErrDaemonRefused

// WorkTreeOf returns the top of the work tree containing dir as a hook
// finds it without opening the repository: from the file system alone,
// with getenv the environment git would see; false when that would take
// git (a GIT_DIR-like variable, an unusual layout, getenv nil).
func WorkTreeOf(dir string, getenv func(string) string) (string, bool) {
	repo, ok := git.FindRepo(dir, getenv)
	if !ok {
		return "", false
	}
	return repo.WorkTree, true
}
