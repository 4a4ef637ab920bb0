package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// ErrUnmerged is returned when the index has unmerged entries (a merge,
// rebase or cherry-pick stopped on conflicts): gitguard cannot tell which
// side is "the file" until the user resolves them.
var ErrUnmerged = errors.New("index has unmerged entries")

// DefaultMaxFileSize is the size above which a file is recorded by hash only.
const DefaultMaxFileSize = 64 << 20

// Options tunes a Workspace. The zero value is valid.
type Options struct {
	// ExcludesFile is the global ignore file (see DefaultExcludesFile).
	ExcludesFile string
	// Exclude holds doublestar globs of untracked paths never recorded,
	// on top of git's ignore rules.
	Exclude []string
	// MaxFileSize is the size above which a changed file is recorded by
	// hash, size and mode only. Zero means DefaultMaxFileSize; negative, no limit.
	MaxFileSize int64
	// Workers bounds parallel lstat and hashing; zero means 2×GOMAXPROCS.
	Workers int
	// Logger receives Debug timings; nil discards.
	Logger *slog.Logger
}

// Workspace is the work tree of one repository. It is safe for concurrent
// use by one process; the stat cache is per worktree.
type Workspace struct {
	Repo   *git.Repo
	DB     *odb.DB
	Config git.Config
	opts   Options
	log    *slog.Logger
}

// Open prepares a Workspace for repo, whose objects are in db.
func Open(repo *git.Repo, db *odb.DB, cfg git.Config, opts Options) (*Workspace, error) {
	if opts.MaxFileSize == 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	if opts.Workers <= 0 {
		opts.Workers = 2 * runtime.GOMAXPROCS(0)
	}
	for _, g := range opts.Exclude {
		if !validGlob(g) {
			return nil, fmt.Errorf("exclude pattern %q: %w", g, ErrBadGlob)
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Workspace{Repo: repo, DB: db, Config: cfg, opts: opts, log: log}, nil
}

// StateDir is gitguard's private folder for this worktree (never in the work tree).
func (w *Workspace) StateDir() string { return filepath.Join(w.Repo.GitDir, "gitguard") }

// Abs returns the absolute file name of a slash-separated repository path.
func (w *Workspace) Abs(path string) string {
	return filepath.Join(w.Repo.WorkTree, filepath.FromSlash(path))
}

// Head is where HEAD pointed when a snapshot was taken.
type Head struct {
	Commit git.Hash // zero when unborn
	Ref    string   // e.g. refs/heads/main; empty when detached
}

// ReadHead reads HEAD: the symbolic ref it names (if any) and the commit.
// An unborn branch (a repository without commits) has a zero Commit.
func (w *Workspace) ReadHead(ctx context.Context) (Head, error) {
	var h Head
	data, err := os.ReadFile(filepath.Join(w.Repo.GitDir, "HEAD"))
	if err != nil {
		return h, fmt.Errorf("read HEAD: %w", err)
	}
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: "); ok {
		h.Ref = ref
	}
	out, err := w.Repo.Git(ctx, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil {
		if git.ExitCode(err) == 1 { // unborn
			return h, nil
		}
		return h, fmt.Errorf("read HEAD: %w", err)
	}
	h.Commit, err = git.ParseHash(strings.TrimSpace(string(out)))
	return h, err
}

// ReadIndex reads the worktree's index. For index formats gitguard does not
// parse itself (split index) it falls back to `git ls-files`, without stat
// data, so every file is hashed.
func (w *Workspace) ReadIndex(ctx context.Context) (*Index, error) {
	path := filepath.Join(w.Repo.GitDir, "index")
	idx, err := readIndexFile(path)
	if errors.Is(err, errSplitIndex) {
		return w.lsFiles(ctx)
	}
	return idx, err
}

func (w *Workspace) lsFiles(ctx context.Context) (*Index, error) {
	out, err := w.Repo.Git(ctx, "ls-files", "--stage", "-z")
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	idx := &Index{}
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("%w: ls-files line %q", ErrIndexFormat, rec)
		}
		mode, err := odb.ParseMode(f[0])
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrIndexFormat, err)
		}
		h, err := git.ParseHash(f[1])
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrIndexFormat, err)
		}
		idx.Entries = append(idx.Entries, IndexEntry{Path: path, Mode: mode, Hash: h, Stage: int(f[2][0] - '0')})
	}
	return idx, nil
}
