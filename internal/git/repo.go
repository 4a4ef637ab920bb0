package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrNotRepository is returned by Discover outside any git repository.
var ErrNotRepository = errors.New("not a git repository")

// ErrBare is returned by Discover for a bare repository, which has no work
// tree to guard.
var ErrBare = errors.New("bare repository has no work tree")

// ErrNoWorkTree is returned by Discover when run inside the .git directory.
var ErrNoWorkTree = errors.New("not inside a work tree")

// Repo locates a repository with a work tree.
type Repo struct {
	WorkTree  string // absolute path of the top of the work tree
	GitDir    string // this worktree's git dir (differs from CommonDir in linked worktrees)
	CommonDir string // the shared git dir holding objects and refs
}

// Discover finds the repository containing dir the way git itself does,
// honouring GIT_DIR, GIT_WORK_TREE, gitfiles and linked worktrees. It returns
// ErrNotRepository, ErrBare or ErrNoWorkTree for directories it cannot guard.
func Discover(ctx context.Context, dir string) (*Repo, error) {
	out, err := Run(ctx, dir, "rev-parse", "--path-format=absolute",
		"--git-dir", "--git-common-dir", "--is-bare-repository", "--show-toplevel")
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if err != nil {
		var ee *ExitError
		if !errors.As(err, &ee) {
			return nil, err
		}
		switch {
		case len(lines) >= 3 && lines[2] == "true":
			return nil, fmt.Errorf("%s: %w", lines[0], ErrBare)
		case len(lines) >= 3:
			return nil, fmt.Errorf("%s: %w", lines[0], ErrNoWorkTree)
		case strings.Contains(ee.Stderr, "not a git repository"):
			return nil, fmt.Errorf("%s: %w", dir, ErrNotRepository)
		default:
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
	}
	if len(lines) != 4 {
		return nil, fmt.Errorf("git rev-parse in %s: unexpected output %q", dir, out)
	}
	if lines[2] == "true" {
		return nil, fmt.Errorf("%s: %w", lines[0], ErrBare)
	}
	return &Repo{
		GitDir:    filepath.Clean(lines[0]),
		CommonDir: filepath.Clean(lines[1]),
		WorkTree:  filepath.Clean(lines[3]),
	}, nil
}

// Git runs git in the repository's work tree (its git dir when bare).
func (r *Repo) Git(ctx context.Context, args ...string) ([]byte, error) {
	return Run(ctx, r.dir(), args...)
}

// Config is the repository's effective configuration, as `git config --list`
// reports it: keys are lowercased section.name (subsection case kept), and a
// key set more than once keeps every value in order.
type Config map[string][]string

// Get returns the last value of key, as git does for single-valued keys.
func (c Config) Get(key string) (string, bool) {
	v := c[normalizeKey(key)]
	if len(v) == 0 {
		return "", false
	}
	return v[len(v)-1], true
}

// Bool returns key as a git boolean, or def when unset or unparseable.
func (c Config) Bool(key string, def bool) bool {
	v, ok := c.Get(key)
	if !ok {
		return def
	}
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1", "":
		return true
	case "false", "no", "off", "0":
		return false
	}
	return def
}

// ReadConfig reads the effective configuration of the repository in one git call.
func (r *Repo) ReadConfig(ctx context.Context) (Config, error) {
	return readConfig(ctx, r.WorkTree)
}

// DiscoverWithConfig is Discover and ReadConfig at once: the two git
// processes run side by side, which saves one process start (about 7 ms
// on a small machine) on every command.
func DiscoverWithConfig(ctx context.Context, dir string) (*Repo, Config, error) {
	type result struct {
		cfg Config
		err error
	}
	ch := make(chan result, 1)
	go func() {
		// git finds the same repository from dir as from its top.
		cfg, err := readConfig(ctx, dir)
		ch <- result{cfg, err}
	}()
	repo, err := Discover(ctx, dir)
	res := <-ch
	if err != nil {
		return nil, nil, err
	}
	if res.err != nil {
		return nil, nil, res.err
	}
	return repo, res.cfg, nil
}

func readConfig(ctx context.Context, dir string) (Config, error) {
	out, err := Run(ctx, dir, "config", "--list", "-z")
	if err != nil {
		return nil, fmt.Errorf("read git config: %w", err)
	}
	cfg := Config{}
	for _, item := range bytes.Split(out, []byte{0}) {
		if len(item) > 0 {
			cfg.add(item)
		}
	}
	return cfg, nil
}

// add records one "key\nvalue" item of `git config --list -z` and returns
// its normalized key.
func (c Config) add(item []byte) string {
	k, v, _ := bytes.Cut(item, []byte{'\n'})
	key := normalizeKey(string(k))
	c[key] = append(c[key], string(v))
	return key
}

// normalizeKey lowercases the section and variable name but keeps the
// subsection, which git treats case-sensitively.
func normalizeKey(k string) string {
	first := strings.IndexByte(k, '.')
	last := strings.LastIndexByte(k, '.')
	if first < 0 || first == last {
		return strings.ToLower(k)
	}
	return strings.ToLower(k[:first]) + k[first:last] + strings.ToLower(k[last:])
}
