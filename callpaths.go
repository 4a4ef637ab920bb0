package gitguard

import (
	"github.com/gitguard/gitguard/internal/callscope"
)

// ErrOutsideWorkTree is returned for a path argument outside the work tree.
var ErrOutsideWorkTree = callscope.ErrOutsideWorkTree

// RepoPath turns a path argument (relative to dir, or absolute) into a
// slash-separated path relative to the top of the work tree. It returns
// ErrOutsideWorkTree for paths that leave it, and record.ErrBadPath for
// paths into .git.
func (g *Guard) RepoPath(dir, arg string) (string, error) {
	return callscope.RepoPath(g.repo.WorkTree, dir, arg)
}

// scope splits declared paths into files captured one by one, or widens
// to a whole-workspace capture with globs when a path is a folder.
func (g *Guard) scope(o *CallOptions) (err error) {
	o.Paths, o.Globs, err = callscope.Scope(g.ws.Abs, o.Paths, o.Globs)
	return err
}
