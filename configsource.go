package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/config"
	"github.com/gitguard/gitguard/internal/settings"
	"github.com/gitguard/gitguard/record"
)

// The settings that decide what is protected come from flags, git config
// and HEAD's .gitguard.toml (see internal/settings). A run records the
// settings it started with in its checkpoints and every later call of the
// run snapshots with those.

// loadSettings reads the configuration and makes it the one new runs
// start with.
func (g *Guard) loadSettings(ctx context.Context) error {
	flags := &config.Config{Exclude: g.views.Base.Exclude, MaxFileSize: g.views.Base.MaxFileSize}
	cfg, s, err := settings.Load(ctx, g.ws, g.db, flags, g.h.Config)
	if err != nil {
		return err
	}
	g.Config = cfg
	g.views.Configured(s)
	return g.useSettings(ctx, nil, record.ZeroHash)
}

// useSettings snapshots with s from now on, under view (zero for none):
// a run's recorded settings and the view it started with, or, for nil (a
// new run, or one recorded before runs kept their settings), the
// configuration read at Open. The workspace is reopened only when they
// differ from what it snapshots with (see settings.Views).
func (g *Guard) useSettings(_ context.Context, s *record.Settings, view record.Hash) error {
	ws, err := g.views.Use(g.ws, s, view)
	if err != nil {
		return err
	}
	g.ws = ws
	return nil
}

// useRunSettings snapshots with the settings run id started with.
func (g *Guard) useRunSettings(ctx context.Context, cp *record.Checkpoint) error {
	if g.ws == nil || cp == nil {
		return nil
	}
	return g.useSettings(ctx, cp.Settings, settings.RunView(cp))
}

// newRunSettings returns the settings to record in a run's first
// checkpoint, and snapshots with them.
func (g *Guard) newRunSettings(ctx context.Context) (*record.Settings, error) {
	if err := g.useSettings(ctx, nil, record.ZeroHash); err != nil {
		return nil, err
	}
	s := g.views.Now
	return &s, nil
}

// ConfigNotice returns a one-line notice when the work tree's
// .gitguard.toml differs from HEAD's: gitguard does not use the work
// tree's copy, so its edits count only once committed, and only for runs
// started after that. It returns "" when they agree.
func (g *Guard) ConfigNotice(ctx context.Context) string {
	if g.ws == nil {
		return ""
	}
	return settings.Notice(ctx, g.ws, g.db)
}
