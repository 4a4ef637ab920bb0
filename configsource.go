package gitguard

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gitguard/gitguard/config"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/internal/repo"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// The settings that decide what is protected (exclude globs, the size
// limit, retention) come only from places a guarded agent does not edit
// in passing, highest precedence first:
//
//  1. flags: the options given in code (Options.Workspace; the CLI's
//     --exclude and --max-file-size);
//  2. git config: the gitguard.* keys of the repository, user or system
//     configuration (config.FromGitConfig), read once when the
//     repository is opened;
//  3. HEAD's .gitguard.toml: the committed file, read from the object
//     database, never the work tree's copy;
//  4. defaults.
//
// Exclude globs add up over all of them. A run records the settings it
// started with in its checkpoints (record.Settings) and every later call
// of the run snapshots with those, so a change of configuration, however
// made, counts only for runs started after it.

// loadSettings reads the configuration and makes it the one new runs
// start with.
func (g *Guard) loadSettings(ctx context.Context) error {
	flags := &config.Config{Exclude: g.wopts.Exclude, MaxFileSize: g.wopts.MaxFileSize}
	fromGit, err := config.FromGitConfig(func(key string) []string { return g.h.Config[strings.ToLower(key)] })
	if err != nil {
		return err
	}
	head, err := g.headConfig(ctx)
	if err != nil {
		return err
	}
	g.Config = config.Merge(
		config.Layer{Source: config.SourceFlags, Config: flags},
		config.Layer{Source: config.SourceGitConfig, Config: fromGit},
		config.Layer{Source: config.SourceHEAD, Config: head},
	)
	s := record.Settings{Exclude: g.Config.Exclude, MaxFileSize: g.Config.MaxFileSize, Sources: g.Config.Sources}
	if s.MaxFileSize == 0 {
		s.MaxFileSize = workspace.DefaultMaxFileSize
		s.Sources = append(slices.Clip(s.Sources), config.SourceDefaults)
	}
	g.settings = s
	if g.applied == nil {
		// What the workspace was opened with; reopened only if different.
		first := record.Settings{Exclude: g.wopts.Exclude, MaxFileSize: g.wopts.MaxFileSize}
		if first.MaxFileSize == 0 {
			first.MaxFileSize = workspace.DefaultMaxFileSize
		}
		g.applied = &first
	}
	return g.useSettings(ctx, nil)
}

// headConfigState returns the state of HEAD's .gitguard.toml (absent on an unborn
// branch or when HEAD has none).
func (g *Guard) headConfigState(ctx context.Context) (record.State, error) {
	h, err := g.ws.ReadHead(ctx)
	if err != nil || h.Commit.IsZero() {
		return record.State{}, err
	}
	c, err := g.db.ReadCommit(h.Commit)
	if err != nil {
		return record.State{}, fmt.Errorf("read HEAD's %s: %w", config.FileName, err)
	}
	fs, err := g.db.Lookup(c.Tree, config.FileName)
	if err != nil {
		return record.State{}, fmt.Errorf("read HEAD's %s: %w", config.FileName, err)
	}
	return state(fs), nil
}

// headConfig parses HEAD's .gitguard.toml; nil when there is none. Only a
// regular file counts: a committed symlink is not followed.
func (g *Guard) headConfig(ctx context.Context) (*config.Config, error) {
	st, err := g.headConfigState(ctx)
	if err != nil || !st.Exists() || (st.Mode != record.ModeFile && st.Mode != record.ModeExec) {
		return nil, err
	}
	data, err := g.db.ReadAs(st.Hash, odb.TypeBlob)
	if err != nil {
		return nil, fmt.Errorf("read HEAD's %s: %w", config.FileName, err)
	}
	name := config.SourceHEAD
	if len(data) > config.MaxFileBytes {
		return nil, &config.FileError{File: name, Msg: fmt.Sprintf("larger than %d bytes", config.MaxFileBytes)}
	}
	return config.Parse(name, data)
}

// useSettings snapshots with s from now on: a run's recorded settings,
// or, for nil (a new run, or one recorded before runs kept their
// settings), the configuration read at Open.
func (g *Guard) useSettings(ctx context.Context, s *record.Settings) error {
	return g.useView(ctx, s, record.ZeroHash)
}

// useView is useSettings under a run's start view (zero for none, see
// runview.go): the workspace then sees as the run started, and a path is
// left out only if both the run's settings and today's leave it out.
func (g *Guard) useView(ctx context.Context, s *record.Settings, view record.Hash) error {
	if s == nil {
		s = &g.settings
	}
	if g.applied != nil && sameSettings(g.applied, s) && g.appliedView == view {
		return nil
	}
	o := g.wopts
	o.Exclude, o.MaxFileSize = s.Exclude, s.MaxFileSize
	if !view.IsZero() {
		o.ViewStart, o.CurrentExclude = view, g.settings.Exclude
		o.MaxFileSize = largerLimit(s.MaxFileSize, g.settings.MaxFileSize)
	}
	if !sameSettings(s, &g.settings) {
		// A watch daemon snapshots as configured now, not as this run
		// does: asking it would only make it reopen and refuse.
		o.UseDaemon = false
	}
	ws, err := workspace.Open(repo.WithHandle(ctx, g.h), g.repo.WorkTree, o)
	if err != nil {
		return fmt.Errorf("snapshot settings: %w", err)
	}
	if g.ws != nil {
		// Closed with the Guard: a watch daemon made from it may still
		// serve from it.
		g.retired = append(g.retired, g.ws)
	}
	g.ws = ws
	cp := *s
	g.applied, g.appliedView = &cp, view
	return nil
}

// useRunSettings snapshots with the settings run id started with.
func (g *Guard) useRunSettings(ctx context.Context, cp *record.Checkpoint) error {
	if g.ws == nil || cp == nil {
		return nil
	}
	return g.useView(ctx, cp.Settings, runView(cp))
}

// newRunSettings returns the settings to record in a run's first
// checkpoint, and snapshots with them.
func (g *Guard) newRunSettings(ctx context.Context) (*record.Settings, error) {
	if err := g.useSettings(ctx, nil); err != nil {
		return nil, err
	}
	s := g.settings
	return &s, nil
}

func sameSettings(a, b *record.Settings) bool {
	return a.MaxFileSize == b.MaxFileSize && slices.Equal(a.Exclude, b.Exclude)
}

// ConfigNotice returns a one-line notice when the work tree's
// .gitguard.toml differs from HEAD's: gitguard does not use the work
// tree's copy, so its edits count only once committed, and only for runs
// started after that. It returns "" when they agree.
func (g *Guard) ConfigNotice(ctx context.Context) string {
	if g.ws == nil {
		return ""
	}
	head, err := g.headConfigState(ctx)
	if err != nil {
		return ""
	}
	cur, _, err := g.ws.Capture(config.FileName, false)
	if err != nil {
		return ""
	}
	now := state(cur)
	if cur.Mode == record.ModeTree {
		now = record.State{}
	}
	if now == head {
		return ""
	}
	what := "differs from HEAD's"
	switch {
	case !head.Exists():
		what = "is not committed"
	case !now.Exists():
		what = "is deleted in the work tree"
	}
	return fmt.Sprintf("%s %s: gitguard uses the committed file (and git config); the edit counts for runs started after it is committed", config.FileName, what)
}
