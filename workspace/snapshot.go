package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore/record"
)

// Snapshot is a recorded state of the workspace. Its trees are in the object
// database when Snapshot returns.
type Snapshot struct {
	Head      record.Head
	IndexTree record.Hash
	Worktree  record.Hash
	// Oversize lists files larger than the size limit: recorded by hash,
	// size and mode only, and absent from Worktree.
	Oversize []record.FileState
	// Skipped lists paths that could not be recorded, with the reason
	// (a nested repository without commits, a file that vanished mid-read).
	Skipped []record.Skipped
	Stats   Stats
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

// Snapshot records HEAD, the index and the work tree (untracked files
// included, ignored excluded). It writes blobs of changed and untracked
// files and the trees, and never writes the index. It returns ErrUnmerged
// when the index has conflict entries.
//
// When this process runs a watch daemon, or Options.UseDaemon is set and
// another process runs one for this work tree, the snapshot comes from the
// daemon's file watcher at the cost of the paths changed since its last
// one; if the daemon cannot answer, Snapshot walks the tree itself.
func (w *Workspace) Snapshot(ctx context.Context) (*Snapshot, error) {
	if d := w.daemon.Load(); d != nil {
		return d.Snapshot(ctx)
	}
	if w.opts.UseDaemon {
		snap, err := w.askDaemon(ctx)
		if err == nil {
			return snap, nil
		}
		if !errors.Is(err, ErrNoDaemon) {
			w.log.Info("walking the work tree: the watch daemon did not answer", "err", err)
		}
	}
	return w.snapshot(ctx, nil)
}

// SnapshotWatched takes a full snapshot that also places wt's watches: each
// folder is watched just before the walk reads it, so every later change
// is an event, and the snapshot becomes wt's base. It costs no more than
// Snapshot plus one inotify watch per folder.
func (w *Workspace) SnapshotWatched(ctx context.Context, wt *Watcher) (*Snapshot, error) {
	snap, err := w.snapshot(ctx, wt.watchDir)
	if err != nil {
		return nil, err
	}
	return snap, wt.setBase(snap, false)
}

func (w *Workspace) snapshot(ctx context.Context, watch func(dir string)) (*Snapshot, error) {
	// The new blobs and trees are stored together at the end: as one pack
	// when there are many, rather than a file each.
	w.db.StartBatch()
	snap, err := w.walkSnapshot(ctx, watch)
	if berr := w.db.EndBatch(); berr != nil && err == nil {
		return nil, fmt.Errorf("store snapshot objects: %w", berr)
	}
	return snap, err
}

func (w *Workspace) walkSnapshot(ctx context.Context, watch func(dir string)) (*Snapshot, error) {
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

	if h, ok := cachedIndexTree(idx); ok && w.db.Has(h) {
		// git trusts its cache-tree for write-tree and commit; so does
		// gitguard, which saves building every folder's tree twice.
		snap.IndexTree = h
	} else {
		snap.IndexTree, err = w.writeFlatTree(indexFlat(idx), &snap.Stats)
		if err != nil {
			return nil, fmt.Errorf("write index tree: %w", err)
		}
	}
	s := &scan{w: w, idx: idx, cache: loadStatCache(w.StateDir()), fresh: statCache{}, snap: snap, watch: watch}
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
	mode record.Mode
	hash record.Hash
}

// emptyBlob is the id of the empty blob.
var emptyBlob = odb.HashObject(odb.TypeBlob, nil)

// cachedIndexTree returns the index's tree from its cache-tree extension
// when that is the whole answer: valid for every entry, and no entry that
// write-tree would treat specially (intent-to-add, sparse folders).
func cachedIndexTree(idx *Index) (record.Hash, bool) {
	if !idx.hasCacheTree {
		return record.ZeroHash, false
	}
	for i := range idx.Entries {
		if e := &idx.Entries[i]; e.IntentToAdd || e.Mode == record.ModeTree || e.Stage != 0 {
			return record.ZeroHash, false
		}
	}
	return idx.cacheTree, true
}

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
	watch func(dir string) // called before a folder is read; nil: no watcher
	w     *Workspace
	idx   *Index
	cache statCache // as loaded; read only
	fresh statCache // the entries valid now, saved for the next snapshot
	snap  *Snapshot

	dirs                 map[string]*dirNode // folders holding tracked entries, by path
	results              []trackedResult     // per index entry; ModeNone until its folder is read
	exclude              bool                // opts.Exclude is not empty
	filemode, trustCtime bool

	// Counters for Options.Progress, updated as folders are done.
	doneEntries, doneDirs, doneHashed atomic.Int64

	mu        sync.Mutex // guards fresh, snap.Oversize, snap.Skipped, untracked, stats
	untracked []flatEntry
	stats     Stats
}

// dirNode is a folder holding tracked entries: the index entries directly
// in it, by name, in index (byte) order.
type dirNode struct {
	files []int32  // index entry numbers
	names []string // their last path component
}

// find returns the index entry named name directly in the folder, or -1.
func (d *dirNode) find(name string) int {
	if d == nil {
		return -1
	}
	lo, hi := 0, len(d.names)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if d.names[m] < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(d.names) && d.names[lo] == name {
		return int(d.files[lo])
	}
	return -1
}

type trackedResult struct {
	mode record.Mode // ModeNone: deleted from the work tree
	hash record.Hash
}

// indexDirs groups the index entries by folder. Every folder above a
// tracked entry gets a node, so the walk enters it even when it is ignored.
func indexDirs(entries []IndexEntry) map[string]*dirNode {
	dirs := map[string]*dirNode{"": {}}
	var cur *dirNode
	curDir := "\x00"
	for i := range entries {
		p := strings.TrimSuffix(entries[i].Path, "/")
		dir, name := "", p
		if j := strings.LastIndexByte(p, '/'); j >= 0 {
			dir, name = p[:j], p[j+1:]
		}
		if dir != curDir {
			curDir = dir
			cur = dirs[dir]
			if cur == nil {
				cur = &dirNode{}
				dirs[dir] = cur
				for d := dir; d != ""; {
					j := strings.LastIndexByte(d, '/')
					if j < 0 {
						d = ""
					} else {
						d = d[:j]
					}
					if dirs[d] != nil {
						break
					}
					dirs[d] = &dirNode{}
				}
			}
		}
		cur.files = append(cur.files, int32(i))
		cur.names = append(cur.names, name)
	}
	return dirs
}

func (s *scan) run(ctx context.Context) ([]flatEntry, error) {
	entries := s.idx.Entries
	s.dirs = indexDirs(entries)
	s.results = make([]trackedResult, len(entries))
	s.exclude = len(s.w.opts.Exclude) > 0
	s.filemode = s.w.config.Bool("core.filemode", true)
	s.trustCtime = s.w.config.Bool("core.trustctime", true)
	for i := range entries {
		if e := &entries[i]; e.Mode == record.ModeTree || e.SkipWorktree {
			// Sparse folders and skip-worktree files are left alone, as
			// git add -A does: their recorded state is the index's.
			s.results[i] = trackedResult{mode: e.Mode, hash: e.Hash}
		}
	}
	base, err := baseIgnores(s.w.repo.CommonDir, s.w.opts.ExcludesFile)
	if err != nil {
		return nil, fmt.Errorf("read ignore rules: %w", err)
	}

	// One task per folder: it lists the folder, decides the state of the
	// tracked entries in it (lstat relative to the open folder, so the
	// kernel resolves one name instead of the whole path) and records its
	// untracked files. A tracked entry whose folder is not reached (gone,
	// now a symlink or a file) is deleted, as git's
	// has_symlink_leading_path has it.
	pool := newPool(ctx, s.w.opts.Workers)
	var walk func(dir string, ign *ignoreStack) error
	walk = func(dir string, ign *ignoreStack) error {
		return s.readDir(dir, ign, func(sub string, st *ignoreStack) {
			pool.Go(func() error { return walk(sub, st) })
		})
	}
	pool.Go(func() error { return walk("", base) })
	stop := s.reportProgress(len(entries))
	err = pool.Wait()
	stop()
	if err != nil {
		return nil, err
	}

	flat := make([]flatEntry, 0, len(entries)+len(s.untracked))
	sort.Slice(s.untracked, func(i, j int) bool { return s.untracked[i].path < s.untracked[j].path })
	u := s.untracked
	for i := range entries {
		r := &s.results[i]
		if r.mode == record.ModeNone {
			continue
		}
		p := strings.TrimSuffix(entries[i].Path, "/")
		for len(u) > 0 && u[0].path < p {
			flat = append(flat, u[0])
			u = u[1:]
		}
		flat = append(flat, flatEntry{path: p, mode: r.mode, hash: r.hash})
	}
	flat = append(flat, u...)
	st := &s.snap.Stats
	st.Tracked, st.Reused, st.Cached, st.Hashed = len(entries), s.stats.Reused, s.stats.Cached, s.stats.Hashed
	st.Untracked, st.Dirs = len(s.untracked), s.stats.Dirs
	sort.Slice(s.snap.Oversize, func(i, j int) bool { return s.snap.Oversize[i].Path < s.snap.Oversize[j].Path })
	sort.Slice(s.snap.Skipped, func(i, j int) bool { return s.snap.Skipped[i].Path < s.snap.Skipped[j].Path })
	return flat, nil
}

// reportProgress calls Options.Progress every ProgressInterval until the
// returned function is called, which makes the final report and returns
// once no call is running.
func (s *scan) reportProgress(tracked int) (stop func()) {
	fn := s.w.opts.Progress
	if fn == nil {
		return func() {}
	}
	start := time.Now()
	report := func(done bool) {
		fn(Progress{
			Entries: int(s.doneEntries.Load()), Tracked: tracked, Dirs: int(s.doneDirs.Load()),
			Hashed: int(s.doneHashed.Load()), Elapsed: time.Since(start), Done: done,
		})
	}
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(ProgressInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				report(false)
			case <-quit:
				report(true)
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}

// statTracked decides the work-tree state of the tracked entries directly
// in one folder, open as fd.
func (s *scan) statTracked(fd int, node *dirNode) error {
	var reused, cached, hashed int
	for k, i := range node.files {
		e := &s.idx.Entries[i]
		if e.Mode == record.ModeTree || e.SkipWorktree {
			continue // decided up front
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, node.names[k], &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
				continue // deleted
			}
			return fmt.Errorf("lstat %s: %w", e.Path, err)
		}
		mode := s.modeOf(&st, e.Mode)
		if e.Mode == record.ModeGitlink && mode == record.ModeTree {
			s.results[i] = s.submodule(e)
			continue
		}
		if mode == record.ModeNone || mode == record.ModeTree {
			continue // not a file any more; a folder's content is found by the walk
		}
		if mode == e.Mode && s.statMatches(e, &st) {
			s.results[i] = trackedResult{mode: mode, hash: e.Hash}
			reused++
			continue
		}
		fs, how, err := s.record(e.Path, s.w.Abs(e.Path), &st, mode)
		if err != nil {
			return err
		}
		switch how {
		case fromCache:
			cached++
		case fromRead:
			hashed++
		}
		if fs.Mode != record.ModeNone {
			s.results[i] = trackedResult{mode: fs.Mode, hash: fs.Hash}
		}
	}
	s.mu.Lock()
	s.stats.Reused += reused
	s.stats.Cached += cached
	s.stats.Hashed += hashed
	s.mu.Unlock()
	s.doneEntries.Add(int64(len(node.files)))
	s.doneHashed.Add(int64(hashed))
	return nil
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
	h, err := record.ParseHash(strings.TrimSpace(string(out)))
	if err != nil {
		return keep
	}
	return trackedResult{mode: record.ModeGitlink, hash: h}
}

// modeOf returns the git mode of a file with stat data st; ModeNone for
// types git does not track (sockets, devices, fifos).
func (s *scan) modeOf(st *unix.Stat_t, indexMode record.Mode) record.Mode {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if !s.filemode {
			// git's ce_mode_from_stat: without a trusted executable bit a
			// file keeps its index mode, and anything else becomes 100644.
			if indexMode.IsFile() {
				return indexMode
			}
			return record.ModeFile
		}
		if st.Mode&0o100 != 0 {
			return record.ModeExec
		}
		return record.ModeFile
	case unix.S_IFLNK:
		return record.ModeSymlink
	case unix.S_IFDIR:
		return record.ModeTree
	}
	return record.ModeNone
}

// statMatches is git's ie_match_stat for the default core.checkStat, plus
// its racily-clean rule: an entry whose mtime is not older than the index
// file could have changed within the same timestamp tick, so it is not trusted.
func (s *scan) statMatches(e *IndexEntry, st *unix.Stat_t) bool {
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
	if s.trustCtime &&
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
func (s *scan) record(rel, full string, st *unix.Stat_t, mode record.Mode) (record.FileState, source, error) {
	key := keyOf(st)
	s.mu.Lock()
	ce, ok := s.cache[rel] // s.cache is never written during the scan
	s.mu.Unlock()
	if ok && ce.key == key && s.w.db.Has(ce.hash) {
		s.mu.Lock()
		s.fresh[rel] = ce
		s.mu.Unlock()
		return record.FileState{Path: rel, Mode: mode, Hash: ce.hash, Size: st.Size}, fromCache, nil
	}
	fs, err := s.w.storeFile(rel, full, st.Size, mode)
	// A file rewritten or replaced while it was read is read again, with
	// fresh stat data, a few times before it is given up on.
	for try := 0; try < 5 && (errors.Is(err, odb.ErrChanged) || errors.Is(err, os.ErrNotExist)); try++ {
		var again unix.Stat_t
		if lerr := unix.Lstat(full, &again); lerr != nil {
			break // really gone
		}
		if try > 0 {
			time.Sleep(time.Duration(try) * time.Millisecond)
		}
		*st, key = again, keyOf(&again)
		if mode = s.modeOf(&again, mode); mode == record.ModeNone || mode == record.ModeTree {
			return record.FileState{Path: rel}, fromRead, nil
		}
		fs, err = s.w.storeFile(rel, full, st.Size, mode)
	}
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, odb.ErrChanged) {
		s.w.log.Warn("file not recorded", "path", rel, "err", err)
		s.skip(rel, fmt.Sprintf("changed while being read (%v); snapshot again to record it", err))
		return record.FileState{Path: rel}, fromRead, nil
	}
	if err != nil {
		return fs, fromRead, err
	}
	if fs.Size > s.w.maxSize() && mode != record.ModeSymlink {
		s.mu.Lock()
		s.snap.Oversize = append(s.snap.Oversize, fs)
		s.mu.Unlock()
		return record.FileState{Path: rel}, fromRead, nil
	}
	s.mu.Lock()
	s.fresh[rel] = cacheEntry{key: key, hash: fs.Hash}
	s.mu.Unlock()
	return fs, fromRead, nil
}

func (s *scan) skip(rel, why string) {
	s.mu.Lock()
	s.snap.Skipped = append(s.snap.Skipped, record.Skipped{Path: rel, Reason: why})
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
func (w *Workspace) storeFile(rel, full string, size int64, mode record.Mode) (record.FileState, error) {
	fs := record.FileState{Path: rel, Mode: mode, Size: size}
	var err error
	switch {
	case mode == record.ModeSymlink:
		var target string
		target, err = os.Readlink(full)
		if err == nil {
			fs.Size = int64(len(target))
			fs.Hash, err = w.db.Write(odb.TypeBlob, []byte(target))
		}
	case size > w.maxSize():
		fs.Hash, err = hashFile(full, size)
	default:
		var conv bool
		if conv, err = w.Converts(context.Background(), rel); err == nil && conv {
			// Recorded as git would stage it; see filters.go.
			fs.Hash, err = git.HashPath(context.Background(), w.repo.WorkTree, rel, true)
		} else if err == nil {
			fs.Hash, err = w.db.WriteFile(full, size)
		}
	}
	if err != nil {
		return fs, fmt.Errorf("record %s: %w", rel, err)
	}
	return fs, nil
}

func hashFile(full string, size int64) (record.Hash, error) {
	f, err := os.Open(full)
	if err != nil {
		return record.ZeroHash, err
	}
	defer f.Close()
	h := odb.NewHasher(odb.TypeBlob, size)
	n, err := io.Copy(h, f)
	if err != nil {
		return record.ZeroHash, err
	}
	if n != size {
		return record.ZeroHash, odb.ErrChanged
	}
	return h.Sum(), nil
}

// direntBufs holds getdents buffers for reuse across folders.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// dirent is one name of a folder listing and its type from getdents
// (unix.DT_*; DT_UNKNOWN when the file system does not say).
type dirent struct {
	name string
	typ  uint8
}

// listDir reads the names in the open folder fd without sorting them.
// The names of one getdents batch share a single string allocation.
func listDir(fd int, out []dirent) ([]dirent, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := unix.Getdents(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		batch := string(buf[:n])
		for off := 0; off+19 <= len(batch); {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(batch[off+16]) | int(batch[off+17])<<8
			if reclen < 19 || off+reclen > len(batch) {
				return out, fmt.Errorf("getdents: bad record length %d", reclen)
			}
			typ := batch[off+18]
			name := batch[off+19 : off+reclen]
			if i := strings.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			off += reclen
			if name == "." || name == ".." {
				continue
			}
			out = append(out, dirent{name: name, typ: typ})
		}
	}
}

// readDir lists one folder: it decides the state of the tracked entries in
// it, records its untracked files and queues subfolders with spawn.
func (s *scan) readDir(dir string, ign *ignoreStack, spawn func(string, *ignoreStack)) error {
	full := s.w.repo.WorkTree
	if dir != "" {
		full = s.w.Abs(dir)
	}
	if s.watch != nil {
		s.watch(dir) // before reading it: a change after this is an event
	}
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if dir != "" {
		// Subfolders are entered only as folders listed by their parent:
		// one replaced by a symlink meanwhile is not followed.
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(full, flags, 0)
	for errors.Is(err, unix.EINTR) {
		fd, err = unix.Open(full, flags, 0)
	}
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
			return nil // removed while walking; its tracked entries are deleted
		}
		return fmt.Errorf("read folder %s: %w", dir, err)
	}
	defer unix.Close(fd)
	node := s.dirs[dir]
	if node != nil {
		if err := s.statTracked(fd, node); err != nil {
			return err
		}
	}
	list, err := listDir(fd, make([]dirent, 0, 64))
	if err != nil {
		return fmt.Errorf("read folder %s: %w", dir, err)
	}
	s.mu.Lock()
	s.stats.Dirs++
	s.mu.Unlock()
	s.doneDirs.Add(1)
	join := func(name string) string {
		if dir == "" {
			return name
		}
		return dir + "/" + name
	}
	if !ign.excludedDir() {
		// git reads no .gitignore inside an ignored folder.
		for _, de := range list {
			if de.name != ".gitignore" {
				continue
			}
			typ := de.typ
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				if unix.Fstatat(fd, de.name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
					typ = unix.DT_REG
				}
			}
			if typ == unix.DT_REG {
				data, err := os.ReadFile(s.w.Abs(join(".gitignore")))
				if err == nil {
					ign = ign.push(parseIgnore(data, dir))
				}
			}
			break
		}
	}
	for _, de := range list {
		name := de.name
		if name == ".git" {
			continue
		}
		typ := de.typ
		if typ == unix.DT_UNKNOWN {
			var st unix.Stat_t
			if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				continue
			}
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFDIR:
				typ = unix.DT_DIR
			case unix.S_IFREG:
				typ = unix.DT_REG
			case unix.S_IFLNK:
				typ = unix.DT_LNK
			default:
				typ = unix.DT_FIFO // some type git does not track
			}
		}
		isDir := typ == unix.DT_DIR
		if i := node.find(name); i >= 0 {
			e := &s.idx.Entries[i]
			if !isDir || e.Mode == record.ModeGitlink || e.Mode == record.ModeTree {
				continue // statTracked handles it
			}
			// A tracked file replaced by a folder: walk the folder as untracked.
		}
		if !isDir && typ != unix.DT_REG && typ != unix.DT_LNK {
			continue
		}
		rel := join(name)
		if isDir && s.dirs[rel] != nil {
			// A folder holding tracked files is walked even when it is
			// ignored, but then all its untracked content is ignored too.
			spawn(rel, ign.enter(rel, name))
			continue
		}
		if ign.ignored(rel, name, isDir) || (s.exclude && MatchAny(s.w.opts.Exclude, rel)) {
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
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			continue // vanished
		}
		mode := s.modeOf(&st, record.ModeNone)
		if mode == record.ModeNone || mode == record.ModeTree {
			continue
		}
		fs, how, err := s.record(rel, s.w.Abs(rel), &st, mode)
		if err != nil {
			return err
		}
		s.doneEntries.Add(1)
		if how == fromRead {
			s.doneHashed.Add(1)
		}
		s.mu.Lock()
		if how == fromCache {
			s.stats.Cached++
		} else {
			s.stats.Hashed++
		}
		if fs.Mode != record.ModeNone {
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
	h, err := record.ParseHash(strings.TrimSpace(string(out)))
	if err != nil {
		s.skip(rel, "nested repository with unreadable HEAD; not recorded")
		return
	}
	s.mu.Lock()
	s.untracked = append(s.untracked, flatEntry{path: rel, mode: record.ModeGitlink, hash: h})
	s.mu.Unlock()
}
