package settings

import (
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// RunView is the view the run of checkpoint cp started with; zero for
// runs of older writers, which snapshot with today's view.
func RunView(cp *record.Checkpoint) record.Hash {
	if cp == nil || cp.View == nil {
		return record.ZeroHash
	}
	return cp.View.Start
}

// WorkspaceOptions are base, the workspace options given in code, set to
// snapshot with settings s under view (zero for none): the workspace then
// sees as the run started, and a path is left out only if both the run's
// settings and today's (now) leave it out. A workspace whose settings
// differ from now does not ask the watch daemon, which snapshots as
// configured now.
func WorkspaceOptions(base workspace.Options, s, now *record.Settings, view record.Hash) workspace.Options {
	o := base
	o.Exclude, o.MaxFileSize = s.Exclude, s.MaxFileSize
	if !view.IsZero() {
		o.ViewStart, o.CurrentExclude = view, now.Exclude
		o.MaxFileSize = largerLimit(s.MaxFileSize, now.MaxFileSize)
	}
	if !Same(s, now) {
		// Asking the daemon would only make it reopen and refuse.
		o.UseDaemon = false
	}
	return o
}

// largerLimit is the larger of two size limits (-1 is no limit): a file is
// recorded by hash only if both the run's limit and today's say so.
func largerLimit(a, b int64) int64 {
	if a < 0 || b < 0 {
		return -1
	}
	return max(a, b)
}
