package gitguard

// WorkTree returns the absolute path of the top of the guarded work tree.
// Request paths that are relative to the top (the JSON-lines protocol's)
// are resolved against it with RepoPath.
func (g *Guard) WorkTree() string { return g.Repo.WorkTree }
