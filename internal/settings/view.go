package settings

import (
	"errors"
	"fmt"

	"github.com/gitguard/gitguard/internal/repo"
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

// Views keeps the workspace snapshots are taken with following the run
// being recorded: reopened when a run's settings or start view differ
// from what it was opened with. It is not safe for concurrent use.
type Views struct {
	Handle *repo.Handle
	Base   workspace.Options // the workspace options given in code
	Now    record.Settings   // the settings configured now, which new runs start with
	// applied and view are what the current workspace snapshots with;
	// retired the workspaces opened before it.
	applied *record.Settings
	view    record.Hash
	retired []*workspace.Workspace
}

// Configured makes s the settings new runs start with. The first time, it
// also notes that the workspace was opened with Base.
func (v *Views) Configured(s record.Settings) {
	v.Now = s
	if v.applied == nil {
		first := record.Settings{Exclude: v.Base.Exclude, MaxFileSize: v.Base.MaxFileSize}
		if first.MaxFileSize == 0 {
			first.MaxFileSize = workspace.DefaultMaxFileSize
		}
		v.applied = &first
	}
}

// Use returns the workspace that snapshots with s (nil: Now) under view
// (zero for none): ws when it already does, else a new one. A replaced
// ws stays open until Close: a watch daemon made from it may still serve
// from it.
func (v *Views) Use(ws *workspace.Workspace, s *record.Settings, view record.Hash) (*workspace.Workspace, error) {
	if s == nil {
		s = &v.Now
	}
	if v.applied != nil && Same(v.applied, s) && v.view == view {
		return ws, nil
	}
	next, err := workspace.OpenRepo(v.Handle, WorkspaceOptions(v.Base, s, &v.Now, view))
	if err != nil {
		return nil, fmt.Errorf("snapshot settings: %w", err)
	}
	if ws != nil && Same(s, &v.Now) {
		// Configured as now: a watch daemon this process runs for the
		// workspace serves this one too, when it sees the same view.
		next.ShareDaemon(ws)
	}
	if ws != nil {
		v.retired = append(v.retired, ws)
	}
	cp := *s
	v.applied, v.view = &cp, view
	return next, nil
}

// Close closes the workspaces Use replaced.
func (v *Views) Close() error {
	var errs []error
	for _, ws := range v.retired {
		errs = append(errs, ws.Close())
	}
	return errors.Join(errs...)
}
