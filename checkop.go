package gitguard

import "github.com/gitguard/gitguard/record"

// incoming returns the trees of the commits the git operation in progress
// brings in (see workspace.OperationCommits): when the user commits a
// merge, a staged path that holds what the merged commit has was brought by
// git, not written by anyone since the checkpoint.
func (g *Guard) incoming() []record.Hash {
	var trees []record.Hash
	for _, h := range g.ws.OperationCommits() {
		if c, err := g.db.ReadCommit(h); err == nil {
			trees = append(trees, c.Tree)
		}
	}
	return trees
}

// broughtIn reports whether staged, the staged content of path, is what
// one of the incoming trees holds there.
func (g *Guard) broughtIn(trees []record.Hash, path string, staged record.State) bool {
	for _, t := range trees {
		if fs, err := g.db.Lookup(t, path); err == nil && fs.State() == staged {
			return true
		}
	}
	return false
}
