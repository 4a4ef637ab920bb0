package git

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
)

// OpenAllowBare is Open that also accepts a bare repository (a server's
// copy of pushed runs): its Repo has no WorkTree, and git runs in its git
// dir. The records of runs can be read there; nothing can be snapshotted.
func OpenAllowBare(ctx context.Context, dir string, getenv func(string) string) (*Repo, Config, error) {
	r, cfg, err := Open(ctx, dir, getenv)
	if !errors.Is(err, ErrBare) {
		return r, cfg, err
	}
	out, err := Run(ctx, dir, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir")
	if err != nil {
		return nil, nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 {
		return nil, nil, ErrNotRepository
	}
	r = &Repo{GitDir: filepath.Clean(lines[0]), CommonDir: filepath.Clean(lines[1])}
	cfg, err = readConfig(ctx, r.GitDir)
	return r, cfg, err
}

// Bare reports whether the repository has no work tree.
func (r *Repo) Bare() bool { return r.WorkTree == "" }

// dir is where git runs for the repository: the top of the work tree, or
// the git dir of a bare repository.
func (r *Repo) dir() string {
	if r.WorkTree == "" {
		return r.GitDir
	}
	return r.WorkTree
}
