package settings

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gitguard/gitguard/config"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// Load merges the settings given in code (flags), the gitguard.* keys of
// git config (gitConfig returns a key's values) and HEAD's .gitguard.toml,
// and returns the configuration and the settings a new run starts with.
func Load(ctx context.Context, ws *workspace.Workspace, db *odb.DB, flags *config.Config, gitConfig map[string][]string) (*config.Config, record.Settings, error) {
	fromGit, err := config.FromGitConfig(func(key string) []string { return gitConfig[strings.ToLower(key)] })
	if err != nil {
		return nil, record.Settings{}, err
	}
	head, err := HeadConfig(ctx, ws, db)
	if err != nil {
		return nil, record.Settings{}, err
	}
	cfg := config.Merge(
		config.Layer{Source: config.SourceFlags, Config: flags},
		config.Layer{Source: config.SourceGitConfig, Config: fromGit},
		config.Layer{Source: config.SourceHEAD, Config: head},
	)
	s := record.Settings{Exclude: cfg.Exclude, MaxFileSize: cfg.MaxFileSize, Sources: cfg.Sources}
	if s.MaxFileSize == 0 {
		s.MaxFileSize = workspace.DefaultMaxFileSize
		s.Sources = append(slices.Clip(s.Sources), config.SourceDefaults)
	}
	return cfg, s, nil
}

// Same reports whether two settings snapshot alike.
func Same(a, b *record.Settings) bool {
	return a.MaxFileSize == b.MaxFileSize && slices.Equal(a.Exclude, b.Exclude)
}

// HeadState returns the state of HEAD's .gitguard.toml (absent on an unborn
// branch or when HEAD has none).
func HeadState(ctx context.Context, ws *workspace.Workspace, db *odb.DB) (record.State, error) {
	h, err := ws.ReadHead(ctx)
	if err != nil || h.Commit.IsZero() {
		return record.State{}, err
	}
	c, err := db.ReadCommit(h.Commit)
	if err != nil {
		return record.State{}, fmt.Errorf("read HEAD's %s: %w", config.FileName, err)
	}
	fs, err := db.Lookup(c.Tree, config.FileName)
	if err != nil {
		return record.State{}, fmt.Errorf("read HEAD's %s: %w", config.FileName, err)
	}
	return fs.State(), nil
}

// HeadConfig parses HEAD's .gitguard.toml; nil when there is none. Only a
// regular file counts: a committed symlink is not followed.
func HeadConfig(ctx context.Context, ws *workspace.Workspace, db *odb.DB) (*config.Config, error) {
	st, err := HeadState(ctx, ws, db)
	if err != nil || !st.Exists() || (st.Mode != record.ModeFile && st.Mode != record.ModeExec) {
		return nil, err
	}
	data, err := db.ReadAs(st.Hash, odb.TypeBlob)
	if err != nil {
		return nil, fmt.Errorf("read HEAD's %s: %w", config.FileName, err)
	}
	name := config.SourceHEAD
	if len(data) > config.MaxFileBytes {
		return nil, &config.FileError{File: name, Msg: fmt.Sprintf("larger than %d bytes", config.MaxFileBytes)}
	}
	return config.Parse(name, data)
}

// Notice returns a one-line notice when the work tree's
// .gitguard.toml differs from HEAD's: gitguard does not use the work
// tree's copy, so its edits count only once committed, and only for runs
// started after that. It returns "" when they agree.
func Notice(ctx context.Context, ws *workspace.Workspace, db *odb.DB) string {
	head, err := HeadState(ctx, ws, db)
	if err != nil {
		return ""
	}
	cur, _, err := ws.Capture(config.FileName, false)
	if err != nil {
		return ""
	}
	now := cur.State()
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
