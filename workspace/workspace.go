package workspace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/internal/repo"
	"github.com/gitguard/gitguard/record"
)

// DefaultMaxFileSize is the size above which a file is recorded by hash only.
const DefaultMaxFileSize = 64 << 20

// Options tunes a Workspace. The zero value is valid.
type Options struct {
	// ExcludesFile is the global ignore file (see DefaultExcludesFile).
	ExcludesFile string
	// AttributesFile is the global attributes file (see DefaultAttributesFile).
	AttributesFile string
	// Exclude holds doublestar globs of untracked paths never recorded,
	// on top of git's ignore rules.
	Exclude []string
	// MaxFileSize is the size above which a changed file is recorded by
	// hash, size and mode only. Zero means DefaultMaxFileSize; negative, no limit.
	MaxFileSize int64
	// ViewStart, if set, is the view tree a run started with (see
	// view.go): the workspace then snapshots as the run started, leaving
	// a path out only if both the start's rules and today's do. With it,
	// an untracked path is left out by Exclude only if CurrentExclude
	// (today's configured globs) leaves it out too.
	ViewStart      record.Hash
	CurrentExclude []string
	// RecordView makes every snapshot record the view it saw
	// (Snapshot.View): a few small objects the first time, none after
	// while nothing changes. ViewStart implies it.
	RecordView bool
	// Workers bounds parallel lstat and hashing; zero means 2×GOMAXPROCS.
	Workers int
	// UseDaemon lets Snapshot ask the work tree's watch daemon (see
	// Daemon), when one runs, instead of walking the tree.
	UseDaemon bool
	// Getenv, if set, lets Open find the repository and read its git
	// configuration without starting git when the environment does not
	// steer git elsewhere; nil always asks git.
	Getenv func(string) string
	// Logger receives Debug timings; nil discards.
	Logger *slog.Logger
	// Progress, if set, is called about every ProgressInterval while a
	// snapshot walks the work tree, and once more with Done set when the
	// walk ends. It is called from a goroutine of its own, never
	// concurrently with itself, and must return quickly. Library code
	// never prints; the caller decides what to show (and when: a short
	// walk need not show anything).
	Progress func(Progress)
}

// ProgressInterval is how often Options.Progress is called during a walk.
const ProgressInterval = 200 * time.Millisecond

// Progress reports how far a snapshot's walk of the work tree has come.
type Progress struct {
	Entries int           // tracked entries and untracked files looked at so far
	Tracked int           // tracked entries in the index
	Dirs    int           // folders read so far
	Hashed  int           // files read and hashed so far
	Elapsed time.Duration // since the walk started
	Done    bool          // the walk is over; this is the last report
}

// Workspace is the work tree of one repository. It is safe for concurrent
// use by one process; the stat cache is per worktree.
type Workspace struct {
	h      *repo.Handle
	repo   *git.Repo
	db     *odb.DB
	config git.Config
	opts   Options
	log    *slog.Logger

	autocrlf    bool        // core.autocrlf converts every text file
	safecrlf    bool        // core.safecrlf=true: git refuses irreversible line endings
	ignoreCase  bool        // core.ignoreCase: attribute patterns ignore case
	attrSources attrSources // attribute files outside the work tree

	// seenConfig is the configuration as read; config is it with the
	// stat trust keys at the run's start values when frozen is set.
	seenConfig git.Config
	frozen     *frozenView // the run's start view (view.go); nil without one
	filters    git.Filters // the git commands that convert content, as the run started
	// changedFilters names the filters configured otherwise than at the
	// run's start (view.go).
	changedFilters map[string]bool
	daemon         atomic.Pointer[Daemon] // this process's watch daemon, if it runs one
	// sharedDaemon is the workspace whose watch daemon this one uses as
	// its own (ShareDaemon); nil for none.
	sharedDaemon *Workspace
	idxModes     indexModes // for Capture without executable bits or symlinks
	fpOnce       sync.Once
	fingerprint  string
}

// Open finds the repository containing dir and prepares its work tree for
// snapshots. For a folder outside any repository, a bare repository or a
// git dir without a work tree it returns the errors the root package names
// ErrNotRepository, ErrBare and ErrNoWorkTree.
func Open(ctx context.Context, dir string, opts Options) (*Workspace, error) {
	for _, g := range opts.Exclude {
		if !validGlob(g) {
			return nil, fmt.Errorf("exclude pattern %q: %w", g, ErrBadGlob)
		}
	}
	h, err := repo.Open(ctx, dir, opts.Getenv)
	if err != nil {
		return nil, err
	}
	w, err := open(h, opts)
	if err != nil {
		h.Close()
		return nil, err
	}
	return w, nil
}

// OpenRepo prepares the work tree of the repository h for snapshots,
// from h's discovery of it and sharing its object database: for the
// packages of this module that opened the repository already. Closing the
// Workspace leaves h open. It returns the errors Open returns.
func OpenRepo(h *repo.Handle, opts Options) (*Workspace, error) {
	for _, g := range opts.Exclude {
		if !validGlob(g) {
			return nil, fmt.Errorf("exclude pattern %q: %w", g, ErrBadGlob)
		}
	}
	own := h.Share()
	w, err := open(own, opts)
	if err != nil {
		own.Close()
		return nil, err
	}
	return w, nil
}

// open prepares the work tree of h, which the Workspace then owns.
func open(h *repo.Handle, opts Options) (*Workspace, error) {
	if h.Bare() {
		return nil, fmt.Errorf("%s: %w", h.GitDir, git.ErrBare)
	}
	if opts.MaxFileSize == 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	if opts.Workers <= 0 {
		opts.Workers = 2 * runtime.GOMAXPROCS(0)
	}
	if opts.ExcludesFile == "" {
		v, _ := h.Config.Get("core.excludesFile")
		opts.ExcludesFile = DefaultExcludesFile(v)
	}
	if opts.AttributesFile == "" {
		v, _ := h.Config.Get("core.attributesFile")
		opts.AttributesFile = DefaultAttributesFile(v)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Workspace{h: h, repo: h.Repo, db: h.DB, config: h.Config, seenConfig: h.Config, opts: opts, log: log,
		filters: git.Filters{Dir: h.WorkTree}}
	w.initConversion()
	if !opts.ViewStart.IsZero() {
		if err := w.freeze(opts.ViewStart); err != nil {
			return nil, err // the caller closes h
		}
	}
	return w, nil
}

// excluded reports whether the configured globs leave the untracked path
// out: the run's, and, under a run's view, today's too.
func (w *Workspace) excluded(path string) bool {
	return MatchAny(w.opts.Exclude, path) && (w.frozen == nil || MatchAny(w.opts.CurrentExclude, path))
}

// Smudge returns the bytes git checks out at path for blob, converted as
// the workspace's snapshots convert (see view.go).
func (w *Workspace) Smudge(ctx context.Context, path string, blob record.Hash) ([]byte, error) {
	return w.filters.Smudge(ctx, path, blob)
}

// Close releases the workspace's share of the object database.
func (w *Workspace) Close() error { return w.h.Close() }

// WorkTree is the absolute path of the top of the work tree.
func (w *Workspace) WorkTree() string { return w.repo.WorkTree }

// Changes lists the paths whose state differs between two trees (either
// may be zero, meaning empty), sorted by path: for example between two
// snapshots' Worktree trees. The cost is proportional to what changed.
func (w *Workspace) Changes(a, b record.Hash) ([]record.Change, error) { return w.db.DiffTrees(a, b) }

// StateDir is gitguard's private folder for this worktree (never in the work tree).
func (w *Workspace) StateDir() string { return w.h.StateDir() }

// Abs returns the absolute file name of a slash-separated repository path.
func (w *Workspace) Abs(path string) string {
	return filepath.Join(w.repo.WorkTree, filepath.FromSlash(path))
}

// ReadHead reads HEAD: the symbolic ref it names (if any) and the commit.
// An unborn branch (a repository without commits) has a zero Commit.
//
// HEAD and the branch are read from their files (loose ref, then
// packed-refs) as git does, which saves a git process on every snapshot;
// anything unusual (a symbolic ref chain, another ref storage or hash
// format) is left to `git rev-parse`.
func (w *Workspace) ReadHead(ctx context.Context) (record.Head, error) {
	var h record.Head
	data, err := os.ReadFile(filepath.Join(w.repo.GitDir, "HEAD"))
	if err != nil {
		return h, fmt.Errorf("read HEAD: %w", err)
	}
	content := strings.TrimSpace(string(data))
	ref, symbolic := strings.CutPrefix(content, "ref: ")
	if symbolic {
		h.Ref = ref
	}
	if c, ok := w.headFromFiles(content, ref, symbolic); ok {
		h.Commit = c
		return h, nil
	}
	out, err := w.repo.Git(ctx, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil {
		if git.ExitCode(err) == 1 { // unborn
			return h, nil
		}
		return h, fmt.Errorf("read HEAD: %w", err)
	}
	h.Commit, err = record.ParseHash(strings.TrimSpace(string(out)))
	return h, err
}

// headFromFiles resolves HEAD without git; ok is false when git must decide.
func (w *Workspace) headFromFiles(content, ref string, symbolic bool) (record.Hash, bool) {
	if _, set := w.config.Get("extensions.refStorage"); set {
		return record.ZeroHash, false
	}
	if v, _ := w.config.Get("extensions.objectFormat"); v != "" && v != "sha1" {
		return record.ZeroHash, false
	}
	if !symbolic {
		c, err := record.ParseHash(content) // detached
		return c, err == nil
	}
	if !strings.HasPrefix(ref, "refs/heads/") || strings.Contains(ref, "..") {
		return record.ZeroHash, false
	}
	loose, err := os.ReadFile(filepath.Join(w.repo.CommonDir, filepath.FromSlash(ref)))
	if err == nil {
		c, err := record.ParseHash(strings.TrimSpace(string(loose)))
		return c, err == nil // a symbolic ref chain goes to git
	}
	if !errors.Is(err, os.ErrNotExist) {
		return record.ZeroHash, false
	}
	packed, err := os.ReadFile(filepath.Join(w.repo.CommonDir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return record.ZeroHash, true // unborn
	}
	if err != nil {
		return record.ZeroHash, false
	}
	for _, line := range strings.Split(string(packed), "\n") {
		id, name, ok := strings.Cut(strings.TrimSuffix(line, "\r"), " ")
		if ok && name == ref {
			c, err := record.ParseHash(id)
			return c, err == nil
		}
	}
	return record.ZeroHash, true // unborn: the branch exists nowhere
}

// ReadIndex reads the worktree's index. For index formats gitguard does not
// parse itself (split index) it falls back to `git ls-files --debug`, which
// reports the merged entries with their flags and stat data.
func (w *Workspace) ReadIndex(ctx context.Context) (*Index, error) {
	path := filepath.Join(w.repo.GitDir, "index")
	idx, err := readIndexFile(path)
	if errors.Is(err, errSplitIndex) {
		return w.lsFiles(ctx, idx)
	}
	return idx, err
}

// lsFiles reads a split index through git. Entries may come from the shared
// index, written earlier than the split index file, so they are trusted only
// if older than both files (a missing shared index trusts nothing).
func (w *Workspace) lsFiles(ctx context.Context, split *Index) (*Index, error) {
	out, err := w.repo.Git(ctx, "ls-files", "--stage", "--debug", "-z")
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	idx := &Index{Mtime: split.Mtime}
	shared, err := os.Stat(filepath.Join(w.repo.GitDir, "sharedindex."+split.sharedIndex.String()))
	if err != nil {
		idx.Mtime = 0
	} else if t := shared.ModTime().UnixNano(); t < idx.Mtime {
		idx.Mtime = t
	}
	bad := func(why string) error { return fmt.Errorf("%w: ls-files: %s", ErrIndexFormat, why) }
	rest := string(out)
	for rest != "" {
		meta, after, ok := strings.Cut(rest, "\t")
		if !ok {
			return nil, bad("no tab in " + meta)
		}
		path, after, ok := strings.Cut(after, "\x00")
		if !ok {
			return nil, bad("unterminated path " + path)
		}
		// Five debug lines follow each entry (builtin/ls-files.c).
		var debug [5]string
		for i := range debug {
			debug[i], after, ok = strings.Cut(after, "\n")
			if !ok {
				return nil, bad("short debug output for " + path)
			}
		}
		rest = after
		f := strings.Fields(meta)
		if len(f) != 3 || len(f[2]) != 1 {
			return nil, bad("entry " + meta)
		}
		mode, err := record.ParseMode(f[0])
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrIndexFormat, err)
		}
		h, err := record.ParseHash(f[1])
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrIndexFormat, err)
		}
		e := IndexEntry{Path: path, Mode: mode, Hash: h, Stage: int(f[2][0] - '0'), HasStat: true}
		var flags uint32
		_, err = fmt.Sscanf(strings.Join(debug[:], "\n"),
			"  ctime: %d:%d\n  mtime: %d:%d\n  dev: %d\tino: %d\n  uid: %d\tgid: %d\n  size: %d\tflags: %x",
			&e.CtimeSec, &e.CtimeNsec, &e.MtimeSec, &e.MtimeNsec, &e.Dev, &e.Ino, &e.UID, &e.GID, &e.Size, &flags)
		if err != nil {
			return nil, bad(fmt.Sprintf("debug output for %s: %v", path, err))
		}
		// In-memory ce_flags: CE_SKIP_WORKTREE and CE_INTENT_TO_ADD.
		e.SkipWorktree = flags&(1<<30) != 0
		e.AssumeValid = flags&0x8000 != 0
		e.IntentToAdd = flags&(1<<29) != 0
		idx.Entries = append(idx.Entries, e)
	}
	return idx, nil
}
