package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// Snapshot is a recorded state of the workspace. Its trees are in the object
// database when Snapshot returns.
type Snapshot struct {
	Head      Head
	IndexTree git.Hash
	Worktree  git.Hash
	// Oversize lists files larger than the size limit: recorded by hash,
	// size and mode only, and absent from Worktree.
	Oversize []FileState
	// Skipped lists paths that could not be recorded, with the reason
	// (a nested repository without commits, a file that vanished mid-read).
	Skipped []SkippedPath
	Stats   Stats
}

// SkippedPath is a path a snapshot could not record.
type SkippedPath struct {
	Path   string
	Reason string
}

// Stats counts the work a snapshot did.
type Stats struct {
	Tracked   int // index entries looked at
	Reused    int // blob ids taken from the index without reading the file
	Cached    int // blob ids taken from the stat cache
	Hashed    int // files read and hashed
	Untracked int // untracked files recorded
	Dirs      int // folders read
	Trees     int // tree objects written
}

// FileState is the state of one path: a blob id and mode, or absent (Mode 0).
type FileState struct {
	Path string
	Mode odb.Mode
	Hash git.Hash
	Size int64
}

// Exists reports whether the path holds something.
func (f FileState) Exists() bool { return f.Mode != odb.ModeNone }

// Snapshot records HEAD, the index and the work tree (untracked files
// included, ignored excluded). It writes blobs of changed and untracked
// files and the trees, and never writes the index. It returns ErrUnmerged
// when the index has conflict entries.
func (w *Workspace) Snapshot(ctx context.Context) (*Snapshot, error) {
	start := now()
	head, err := w.ReadHead(ctx)
	if err != nil {
		return nil, err
	}
	idx, err := w.ReadIndex(ctx)
	if err != nil {
		return nil, err
	}
	if un := unmergedPaths(idx); len(un) > 0 {
		return nil, &UnmergedError{Paths: un}
	}
	snap := &Snapshot{Head: head}
	tIndex := time.Now()

	snap.IndexTree, err = w.writeFlatTree(indexFlat(idx), &snap.Stats)
	if err != nil {
		return nil, fmt.Errorf("write index tree: %w", err)
	}
	s := &scan{w: w, idx: idx, cache: loadStatCache(w.StateDir()), fresh: statCache{},
		realDirs: map[string]bool{"": true}, snap: snap}
	flat, err := s.run(ctx)
	if err != nil {
		return nil, err
	}
	tWalk := time.Now()
	snap.Worktree, err = w.writeFlatTree(flat, &snap.Stats)
	if err != nil {
		return nil, fmt.Errorf("write worktree tree: %w", err)
	}
	// Only paths seen in this walk are kept, so entries of deleted files
	// do not pile up in the cache forever.
	if err := s.fresh.save(w.StateDir(), start); err != nil {
		w.log.Warn("stat cache not saved", "err", err)
	}
	w.log.Debug("snapshot", "index", tIndex.Sub(start), "walk", tWalk.Sub(tIndex),
		"trees", time.Since(tWalk), "stats", fmt.Sprintf("%+v", snap.Stats))
	return snap, nil
}

// UnmergedError lists the paths with conflict entries in the index.
type UnmergedError struct{ Paths []string }

func (e *UnmergedError) Error() string {
	p := e.Paths
	more := ""
	if len(p) > 3 {
		p, more = p[:3], fmt.Sprintf(" and %d more", len(e.Paths)-3)
	}
	return fmt.Sprintf("%s: %s%s", ErrUnmerged, strings.Join(p, ", "), more)
}

func (e *UnmergedError) Unwrap() error { return ErrUnmerged }

func unmergedPaths(idx *Index) []string {
	var out []string
	for i := range idx.Entries {
		e := &idx.Entries[i]
		if e.Stage != 0 && (len(out) == 0 || out[len(out)-1] != e.Path) {
			out = append(out, e.Path)
		}
	}
	return out
}

// flatEntry is one leaf of a tree being built, by full slash-separated path.
type flatEntry struct {
	path string
	mode odb.Mode
	hash git.Hash
}

// emptyBlob is the id of the empty blob.
var emptyBlob = odb.HashObject(odb.TypeBlob, nil)

func indexFlat(idx *Index) []flatEntry {
	out := make([]flatEntry, 0, len(idx.Entries))
	for i := range idx.Entries {
		e := &idx.Entries[i]
		if e.IntentToAdd {
			continue // as in git write-tree: not part of the index tree yet
		}
		out = append(out, flatEntry{path: strings.TrimSuffix(e.Path, "/"), mode: e.Mode, hash: e.Hash})
	}
	return out
}

// now is the clock the stat cache's racy margin is measured against; tests
// move it forward instead of sleeping.
var now = time.Now

// scan is one walk of the work tree.
type scan struct {
	w     *Workspace
	idx   *Index
	cache statCache // as loaded; read only
	fresh statCache // the entries valid now, saved for the next snapshot
	snap  *Snapshot

	mu        sync.Mutex // guards fresh, realDirs, snap.Oversize, snap.Skipped, untracked
	untracked []flatEntry
	stats     Stats
	realDirs  map[string]bool // folder path → is a real folder (no symlink on the way)
}

type trackedResult struct {
	mode odb.Mode // ModeNone: deleted from the work tree
	hash git.Hash
}

func (s *scan) run(ctx context.Context) ([]flatEntry, error) {
	entries := s.idx.Entries
	tracked := make(map[string]int, len(entries))
	dirs := map[string]bool{"": true}
	lastDir := "\x00"
	for i := range entries {
		p := strings.TrimSuffix(entries[i].Path, "/")
		tracked[p] = i
		d := path.Dir(p)
		if d == "." {
			d = ""
		}
		if d == lastDir {
			continue
		}
		lastDir = d
		for d != "" && !dirs[d] {
			dirs[d] = true
			if i := strings.LastIndexByte(d, '/'); i >= 0 {
				d = d[:i]
			} else {
				d = ""
			}
		}
	}
	results := make([]trackedResult, len(entries))
	base, err := baseIgnores(s.w.Repo.CommonDir, s.w.opts.ExcludesFile)
	if err != nil {
		return nil, fmt.Errorf("read ignore rules: %w", err)
	}

	pool := newPool(ctx, s.w.opts.Workers)
	const chunk = 256
	for lo := 0; lo < len(entries); lo += chunk {
		hi := min(lo+chunk, len(entries))
		pool.Go(func() error { return s.statTracked(entries[lo:hi], results[lo:hi]) })
	}
	var walk func(dir string, ign *ignoreStack) error
	walk = func(dir string, ign *ignoreStack) error {
		return s.readDir(dir, ign, tracked, dirs, func(sub string, st *ignoreStack) {
			pool.Go(func() error { return walk(sub, st) })
		})
	}
	pool.Go(func() error { return walk("", base) })
	if err := pool.Wait(); err != nil {
		return nil, err
	}

	flat := make([]flatEntry, 0, len(entries)+len(s.untracked))
	for i := range entries {
		e := &entries[i]
		if r := results[i]; r.mode != odb.ModeNone {
			flat = append(flat, flatEntry{path: strings.TrimSuffix(e.Path, "/"), mode: r.mode, hash: r.hash})
		}
	}
	sort.Slice(s.untracked, func(i, j int) bool { return s.untracked[i].path < s.untracked[j].path })
	flat = mergeSorted(flat, s.untracked)
	st := &s.snap.Stats
	st.Tracked, st.Reused, st.Cached, st.Hashed = len(entries), s.stats.Reused, s.stats.Cached, s.stats.Hashed
	st.Untracked, st.Dirs = len(s.untracked), s.stats.Dirs
	sort.Slice(s.snap.Oversize, func(i, j int) bool { return s.snap.Oversize[i].Path < s.snap.Oversize[j].Path })
	sort.Slice(s.snap.Skipped, func(i, j int) bool { return s.snap.Skipped[i].Path < s.snap.Skipped[j].Path })
	return flat, nil
}

func mergeSorted(a, b []flatEntry) []flatEntry {
	if len(b) == 0 {
		return a
	}
	out := make([]flatEntry, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i].path < b[j].path {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// statTracked decides each tracked entry's work-tree state.
func (s *scan) statTracked(entries []IndexEntry, out []trackedResult) error {
	var reused, cached, hashed int
	for i := range entries {
		e := &entries[i]
		if e.Mode == odb.ModeTree || e.SkipWorktree {
			// Sparse folders and skip-worktree files are left alone, as
			// git add -A does: their recorded state is the index's.
			out[i] = trackedResult{mode: e.Mode, hash: e.Hash}
			continue
		}
		// lstat follows symlinks in the leading folders: a tracked
		// dir/f.txt seen through a symlink dir -> elsewhere is not in the
		// work tree (git's has_symlink_leading_path); the walk records the
		// symlink itself.
		if d := path.Dir(e.Path); d != "." && !s.realDir(d) {
			continue // deleted
		}
		full := s.w.Abs(e.Path)
		var st syscall.Stat_t
		if err := syscall.Lstat(full, &st); err != nil {
			if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) {
				continue // deleted
			}
			return fmt.Errorf("lstat %s: %w", e.Path, err)
		}
		mode := s.modeOf(&st, e.Mode)
		if e.Mode == odb.ModeGitlink && mode == odb.ModeTree {
			out[i] = s.submodule(e)
			continue
		}
		if mode == odb.ModeNone || mode == odb.ModeTree {
			continue // not a file any more; a folder's content is found by the walk
		}
		if mode == e.Mode && s.statMatches(e, &st) {
			out[i] = trackedResult{mode: mode, hash: e.Hash}
			reused++
			continue
		}
		fs, how, err := s.record(e.Path, full, &st, mode)
		if err != nil {
			return err
		}
		switch how {
		case fromCache:
			cached++
		case fromRead:
			hashed++
		}
		if fs.Mode != odb.ModeNone {
			out[i] = trackedResult{mode: fs.Mode, hash: fs.Hash}
		}
	}
	s.mu.Lock()
	s.stats.Reused += reused
	s.stats.Cached += cached
	s.stats.Hashed += hashed
	s.mu.Unlock()
	return nil
}

// realDir reports whether the slash-separated folder dir and every folder
// above it are real folders, not symlinks or files. Results are memoised:
// one lstat per tracked folder.
func (s *scan) realDir(dir string) bool {
	s.mu.Lock()
	ok, seen := s.realDirs[dir]
	s.mu.Unlock()
	if seen {
		return ok
	}
	parent := path.Dir(dir)
	if parent == "." {
		parent = ""
	}
	ok = s.realDir(parent)
	if ok {
		var st syscall.Stat_t
		ok = syscall.Lstat(s.w.Abs(dir), &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR
	}
	s.mu.Lock()
	s.realDirs[dir] = ok
	s.mu.Unlock()
	return ok
}

// submodule records a submodule's folder as git add -A does: a gitlink to
// the commit checked out in it, or the index's gitlink when it is not
// checked out (no repository in the folder, or one without commits).
// Nothing inside the submodule is read or written; `git rev-parse` only
// reads its HEAD.
func (s *scan) submodule(e *IndexEntry) trackedResult {
	keep := trackedResult{mode: e.Mode, hash: e.Hash}
	full := s.w.Abs(e.Path)
	if !isNestedRepo(full) {
		return keep
	}
	out, err := git.Run(context.Background(), full, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil {
		return keep
	}
	h, err := git.ParseHash(strings.TrimSpace(string(out)))
	if err != nil {
		return keep
	}
	return trackedResult{mode: odb.ModeGitlink, hash: h}
}

// modeOf returns the git mode of a file with stat data st; ModeNone for
// types git does not track (sockets, devices, fifos).
func (s *scan) modeOf(st *syscall.Stat_t, indexMode odb.Mode) odb.Mode {
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		if !s.w.Config.Bool("core.filemode", true) {
			// git's ce_mode_from_stat: without a trusted executable bit a
			// file keeps its index mode, and anything else becomes 100644.
			if indexMode.IsFile() {
				return indexMode
			}
			return odb.ModeFile
		}
		if st.Mode&0o100 != 0 {
			return odb.ModeExec
		}
		return odb.ModeFile
	case syscall.S_IFLNK:
		return odb.ModeSymlink
	case syscall.S_IFDIR:
		return odb.ModeTree
	}
	return odb.ModeNone
}

// statMatches is git's ie_match_stat for the default core.checkStat, plus
// its racily-clean rule: an entry whose mtime is not older than the index
// file could have changed within the same timestamp tick, so it is not trusted.
func (s *scan) statMatches(e *IndexEntry, st *syscall.Stat_t) bool {
	if !e.HasStat || e.IntentToAdd {
		return false // an intent-to-add entry has no content yet (ie_match_stat)
	}
	// A racily clean entry git smudged when writing the index has size 0;
	// unless its blob really is empty, the file must be looked at.
	if e.Size == 0 && e.Hash != emptyBlob {
		return false
	}
	if uint32(st.Mtim.Sec) != e.MtimeSec || uint32(st.Mtim.Nsec) != e.MtimeNsec ||
		uint32(st.Size) != e.Size || uint32(st.Ino) != e.Ino ||
		st.Uid != e.UID || st.Gid != e.GID {
		return false
	}
	if s.w.Config.Bool("core.trustctime", true) &&
		(uint32(st.Ctim.Sec) != e.CtimeSec || uint32(st.Ctim.Nsec) != e.CtimeNsec) {
		return false
	}
	entryMtime := int64(e.MtimeSec)*1e9 + int64(e.MtimeNsec)
	return s.idx.Mtime != 0 && entryMtime < s.idx.Mtime
}

type source int

const (
	fromCache source = iota
	fromRead
)

// record hashes (or finds in the stat cache) the file at full and stores its
// blob. A file that vanished meanwhile is reported absent.
func (s *scan) record(rel, full string, st *syscall.Stat_t, mode odb.Mode) (FileState, source, error) {
	key := keyOf(st)
	s.mu.Lock()
	ce, ok := s.cache[rel] // s.cache is never written during the scan
	s.mu.Unlock()
	if ok && ce.key == key && s.w.DB.Has(ce.hash) {
		s.mu.Lock()
		s.fresh[rel] = ce
		s.mu.Unlock()
		return FileState{Path: rel, Mode: mode, Hash: ce.hash, Size: st.Size}, fromCache, nil
	}
	fs, err := s.w.storeFile(rel, full, st.Size, mode)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, odb.ErrChanged) {
		s.skip(rel, "changed while being read; snapshot again to record it")
		return FileState{Path: rel}, fromRead, nil
	}
	if err != nil {
		return fs, fromRead, err
	}
	if fs.Size > s.w.maxSize() && mode != odb.ModeSymlink {
		s.mu.Lock()
		s.snap.Oversize = append(s.snap.Oversize, fs)
		s.mu.Unlock()
		return FileState{Path: rel}, fromRead, nil
	}
	s.mu.Lock()
	s.fresh[rel] = cacheEntry{key: key, hash: fs.Hash}
	s.mu.Unlock()
	return fs, fromRead, nil
}

func (s *scan) skip(rel, why string) {
	s.mu.Lock()
	s.snap.Skipped = append(s.snap.Skipped, SkippedPath{Path: rel, Reason: why})
	s.mu.Unlock()
}

func (w *Workspace) maxSize() int64 {
	if w.opts.MaxFileSize < 0 {
		return 1<<63 - 1
	}
	return w.opts.MaxFileSize
}

// storeFile writes the blob of one file (a symlink's target, a file's
// bytes) and returns its state. Files above the size limit are only hashed.
func (w *Workspace) storeFile(rel, full string, size int64, mode odb.Mode) (FileState, error) {
	fs := FileState{Path: rel, Mode: mode, Size: size}
	var err error
	switch {
	case mode == odb.ModeSymlink:
		var target string
		target, err = os.Readlink(full)
		if err == nil {
			fs.Size = int64(len(target))
			fs.Hash, err = w.DB.Write(odb.TypeBlob, []byte(target))
		}
	case size > w.maxSize():
		fs.Hash, err = hashFile(full, size)
	default:
		fs.Hash, err = w.DB.WriteFile(full, size)
	}
	if err != nil {
		return fs, fmt.Errorf("record %s: %w", rel, err)
	}
	return fs, nil
}

func hashFile(full string, size int64) (git.Hash, error) {
	f, err := os.Open(full)
	if err != nil {
		return git.ZeroHash, err
	}
	defer f.Close()
	h := odb.NewHasher(odb.TypeBlob, size)
	n, err := io.Copy(h, f)
	if err != nil {
		return git.ZeroHash, err
	}
	if n != size {
		return git.ZeroHash, odb.ErrChanged
	}
	return h.Sum(), nil
}

// readDir lists one folder for untracked files, queueing subfolders with spawn.
func (s *scan) readDir(dir string, ign *ignoreStack, tracked map[string]int, dirs map[string]bool,
	spawn func(string, *ignoreStack)) error {
	full := s.w.Abs(dir)
	f, err := os.Open(full)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil // removed while walking
		}
		return fmt.Errorf("read folder %s: %w", dir, err)
	}
	list, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return fmt.Errorf("read folder %s: %w", dir, err)
	}
	s.mu.Lock()
	s.stats.Dirs++
	s.mu.Unlock()
	join := func(name string) string {
		if dir == "" {
			return name
		}
		return dir + "/" + name
	}
	for _, de := range list {
		if ign.excludedDir() {
			break // git reads no .gitignore inside an ignored folder
		}
		if de.Name() == ".gitignore" && de.Type().IsRegular() {
			data, err := os.ReadFile(s.w.Abs(join(".gitignore")))
			if err == nil {
				ign = ign.push(parseIgnore(data, dir))
			}
			break
		}
	}
	for _, de := range list {
		name := de.Name()
		if name == ".git" {
			continue
		}
		rel := join(name)
		typ := de.Type()
		if typ&os.ModeType == os.ModeIrregular || typ == os.ModeType {
			fi, err := os.Lstat(s.w.Abs(rel))
			if err != nil {
				continue
			}
			typ = fi.Mode().Type()
		}
		isDir := typ.IsDir()
		if i, ok := tracked[rel]; ok {
			e := &s.idx.Entries[i]
			if !isDir || e.Mode == odb.ModeGitlink || e.Mode == odb.ModeTree {
				continue // the tracked pass handles it
			}
			// A tracked file replaced by a folder: walk the folder as untracked.
		}
		if isDir && dirs[rel] {
			// A folder holding tracked files is walked even when it is
			// ignored, but then all its untracked content is ignored too.
			spawn(rel, ign.enter(rel, name))
			continue
		}
		if ign.ignored(rel, name, isDir) || MatchAny(s.w.opts.Exclude, rel) {
			continue
		}
		if isDir {
			if isNestedRepo(s.w.Abs(rel)) {
				s.nested(rel)
				continue
			}
			spawn(rel, ign)
			continue
		}
		if !typ.IsRegular() && typ != os.ModeSymlink {
			continue
		}
		full := s.w.Abs(rel)
		var st syscall.Stat_t
		if err := syscall.Lstat(full, &st); err != nil {
			continue // vanished
		}
		mode := s.modeOf(&st, odb.ModeNone)
		if mode == odb.ModeNone || mode == odb.ModeTree {
			continue
		}
		fs, how, err := s.record(rel, full, &st, mode)
		if err != nil {
			return err
		}
		s.mu.Lock()
		if how == fromCache {
			s.stats.Cached++
		} else {
			s.stats.Hashed++
		}
		if fs.Mode != odb.ModeNone {
			s.untracked = append(s.untracked, flatEntry{path: rel, mode: fs.Mode, hash: fs.Hash})
		}
		s.mu.Unlock()
	}
	return nil
}

// isNestedRepo reports whether dir is the top of a non-bare repository:
// dir/.git is a git directory, or a gitfile ("gitdir: <path>") naming one.
// Like git's is_nonbare_repository_dir, a folder with some other .git (an
// empty folder, a stray file) is an ordinary folder.
func isNestedRepo(dir string) bool {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return false
	}
	if fi.IsDir() {
		return isGitDir(dotgit)
	}
	if !fi.Mode().IsRegular() {
		return false
	}
	data, err := os.ReadFile(dotgit)
	if err != nil {
		return false
	}
	target, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
	if !ok || target == "" {
		return false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return isGitDir(target)
}

// isGitDir is git's is_git_directory: a HEAD, and objects/ and refs/
// folders (in the common dir named by a "commondir" file, for worktrees).
func isGitDir(gd string) bool {
	if _, err := os.Stat(filepath.Join(gd, "HEAD")); err != nil {
		return false
	}
	common := gd
	if data, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
		c := strings.TrimRight(string(data), "\r\n")
		if !filepath.IsAbs(c) {
			c = filepath.Join(gd, c)
		}
		common = c
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(common, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// nested records an untracked nested repository as a gitlink to its HEAD,
// as `git add` would, without reading or touching anything inside it.
func (s *scan) nested(rel string) {
	out, err := git.Run(context.Background(), s.w.Abs(rel), "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil {
		s.skip(rel, "nested repository without commits; not recorded")
		return
	}
	h, err := git.ParseHash(strings.TrimSpace(string(out)))
	if err != nil {
		s.skip(rel, "nested repository with unreadable HEAD; not recorded")
		return
	}
	s.mu.Lock()
	s.untracked = append(s.untracked, flatEntry{path: rel, mode: odb.ModeGitlink, hash: h})
	s.mu.Unlock()
}
