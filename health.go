package gitguard

import (
	"context"
	"strings"

	"github.com/gitguard/gitguard/config"
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/internal/settings"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// MinGitVersion is the oldest git gitguard works with.
var MinGitVersion = [3]int{2, 31, 0}

// GitVersion returns the version of the git program gitguard runs
// ("2.39.5") and whether it is MinGitVersion or newer. It returns
// ErrGitNotFound when there is no git on PATH. It writes nothing.
func GitVersion(ctx context.Context) (version string, ok bool, err error) {
	if version, err = git.Version(ctx); err != nil {
		return "", false, err
	}
	return version, git.VersionAtLeast(version, MinGitVersion), nil
}

// GitConfigSettings returns the gitguard.* settings of git config alone
// (without flags or HEAD's .gitguard.toml): settings that no commit
// shows, so that a check can tell which of them loosen what is
// protected. It writes nothing.
func (g *Guard) GitConfigSettings() (*config.Config, error) {
	return config.FromGitConfig(func(key string) []string { return g.h.Config[strings.ToLower(key)] })
}

// DefaultMaxFileSize is the snapshot size limit when none is configured.
const DefaultMaxFileSize = workspace.DefaultMaxFileSize

// WorktreeName names the linked worktree this Guard records from (as a
// checkpoint's Worktree does); empty for the main work tree.
func (g *Guard) WorktreeName() string { return g.store.WorktreeName() }

// NamespaceRefs returns every ref under refs/agent-checkpoints/ and the
// commit or object it points at: comparing two of them tells whether
// anything recorded in between. It writes nothing.
func (g *Guard) NamespaceRefs(ctx context.Context) (map[string]record.Hash, error) {
	return runread.Tips(ctx, g.refs)
}

// HeadConfig returns the settings of HEAD's committed .gitguard.toml
// alone, or nil when HEAD has none. It writes nothing.
func (g *Guard) HeadConfig(ctx context.Context) (*config.Config, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	return settings.HeadConfig(ctx, g.ws, g.db)
}
