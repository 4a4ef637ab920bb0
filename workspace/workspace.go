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
	"sync"
	"sync/atomic"
	"time"

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
	// AttributesFile is the global attributes file (see DefaultAttributesFile).
	AttributesFile string
	// Exclude holds doublestar globs of untracked paths never recorded,
	// on top of git's ignore rules.
	Exclude []string
	// MaxFileSize is the size above which a changed file is recorded by
	// hash, size and mode only. Zero means DefaultMaxFileSize; negative, no limit.
	MaxFileSize int64
	// Workers bounds parallel lstat and hashing; zero means 2×GOMAXPROCS.
	Workers int
	// UseDaemon lets Snapshot ask the work tree's watch daemon (see
	// Daemon), when one runs, instead of walking the tree.
	UseDaemon bool
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
	Repo   *git.Repo
	DB     *odb.DB
	Config git.Config
	opts   Options
	log    *slog.Logger

	autocrlf    bool // core.autocrlf converts every text file
	globalAttrs bool // a global or info/attributes file exists

	daemon      atomic.Pointer[Daemon] // this process's watch daemon, if it runs one
	idxModes    indexModes             // for Capture without executable bits or symlinks
	fpOnce      sync.Once
	fingerprint string
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
	w := &Workspace{Repo: repo, DB: db, Config: cfg, opts: opts, log: log}
	w.initConversion()
	return w, nil
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
//
// HEAD and the branch are read from their files (loose ref, then
// packed-refs) as git does, which saves a git process on every snapshot;
// anything unusual (a symbolic ref chain, another ref storage or hash
// format) is left to `git rev-parse`.
func (w *Workspace) ReadHead(ctx context.Context) (Head, error) {
	var h Head
	data, err := os.ReadFile(filepath.Join(w.Repo.GitDir, "HEAD"))
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

// headFromFiles resolves HEAD without git; ok is false when git must decide.
func (w *Workspace) headFromFiles(content, ref string, symbolic bool) (git.Hash, bool) {
	if _, set := w.Config.Get("extensions.refStorage"); set {
		return git.ZeroHash, false
	}
	if v, _ := w.Config.Get("extensions.objectFormat"); v != "" && v != "sha1" {
		return git.ZeroHash, false
	}
	if !symbolic {
		c, err := git.ParseHash(content) // detached
		return c, err == nil
	}
	if !strings.HasPrefix(ref, "refs/heads/") || strings.Contains(ref, "..") {
		return git.ZeroHash, false
	}
	loose, err := os.ReadFile(filepath.Join(w.Repo.CommonDir, filepath.FromSlash(ref)))
	if err == nil {
		c, err := git.ParseHash(strings.TrimSpace(string(loose)))
		return c, err == nil // a symbolic ref chain goes to git
	}
	if !errors.Is(err, os.ErrNotExist) {
		return git.ZeroHash, false
	}
	packed, err := os.ReadFile(filepath.Join(w.Repo.CommonDir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return git.ZeroHash, true // unborn
	}
	if err != nil {
		return git.ZeroHash, false
	}
	for _, line := range strings.Split(string(packed), "\n") {
		id, name, ok := strings.Cut(strings.TrimSuffix(line, "\r"), " ")
		if ok && name == ref {
			c, err := git.ParseHash(id)
			return c, err == nil
		}
	}
	return git.ZeroHash, true // unborn: the branch exists nowhere
}

// ReadIndex reads the worktree's index. For index formats gitguard does not
// parse itself (split index) it falls back to `git ls-files --debug`, which
// reports the merged entries with their flags and stat data.
func (w *Workspace) ReadIndex(ctx context.Context) (*Index, error) {
	path := filepath.Join(w.Repo.GitDir, "index")
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
	out, err := w.Repo.Git(ctx, "ls-files", "--stage", "--debug", "-z")
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	idx := &Index{Mtime: split.Mtime}
	shared, err := os.Stat(filepath.Join(w.Repo.GitDir, "sharedindex."+split.sharedIndex.String()))
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
		mode, err := odb.ParseMode(f[0])
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrIndexFormat, err)
		}
		h, err := git.ParseHash(f[1])
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
		e.IntentToAdd = flags&(1<<29) != 0
		idx.Entries = append(idx.Entries, e)
	}
	return idx, nil
}
