package gitguard

// WatchAvailable returns nil when this platform and the work tree's file
// system allow a watch daemon, else why not: workspace.ErrNoWatcher
// (wrapped) on every platform but Linux, where snapshots always walk the
// work tree. It reads nothing but the file system's type.
func (g *Guard) WatchAvailable() error { return g.ws.Watchable() }
