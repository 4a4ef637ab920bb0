package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// now is the clock the stat cache's racy margin is measured against; tests
// move it forward instead of sleeping.
var now = time.Now

// scan is one walk of the work tree.
type scan struct {
	watch func(dir string) // called before a folder is read; nil: no watcher
	w     *Workspace
	idx   *Index
	// staged is the index as read, conflicts included: the blobs git
	// consults when it guesses line endings (filters.go).
	staged *Index
	cache  statCache // as loaded; read only
	fresh  statCache // the entries valid now, saved for the next snapshot
	snap   *Snapshot

	dirs                 map[string]*dirNode // folders holding tracked entries, by path
	results              []trackedResult     // per index entry; ModeNone until its folder is read
	exclude              bool                // opts.Exclude is not empty
	filemode, trustCtime bool
	symlinks             bool              // core.symlinks: false reads links checked out as files
	names                nameRules         // core.ignoreCase, core.precomposeUnicode
	foldedDirs           map[string]string // with ignoreCase: folded path → the index's spelling

	// Counters for Options.Progress, updated as folders are done.
	doneEntries, doneDirs, doneHashed atomic.Int64

	attrs *attrRules // which files git converts (filters.go)

	// With reuseTrees, run sets unchanged: the cache-tree's tree of each
	// folder recorded as the index has it (cachetree.go).
	reuseTrees bool
	unchanged  func(dir string) (record.Hash, bool)
	// changedDirs are the folders unchanged leaves out: something below
	// differs from the index; cacheTrees is the cache-tree it read (see
	// headtrees.go).
	changedDirs map[string]bool
	cacheTrees  map[string]record.Hash

	mu          sync.Mutex // guards fresh, snap.Oversize, snap.Skipped, untracked, converted, stats, unreadable, ignoreFiles
	untracked   []flatEntry
	unreadable  []string               // folders the walk could not read (unreadable.go)
	ignoreFiles map[string]record.Hash // the .gitignore blobs read, by path (view.go)
	// startSkip holds the skip-worktree paths of the run's start when they
	// differ from the index's: only an entry skipped by both is left alone.
	startSkip map[string]bool
	folders   folderCache     // the folder cache (dircache.go); fresh guarded by mu
	converted []convertedFile // left for git to hash (walkconvert.go)
	hasher    *git.PathHasher // hashing them since the first one was found
	stats     Stats
}

// dirNode is a folder holding tracked entries: the index entries directly
// in it, by name, in index (byte) order.
type dirNode struct {
	files  []int32        // index entry numbers
	names  []string       // their last path component
	folded map[string]int // with core.ignoreCase: folded name → position in names
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

// findFold returns the position in d.names of the name that equals name
// but for ASCII case, or -1 (core.ignoreCase).
func (d *dirNode) findFold(name string) int {
	if d == nil {
		return -1
	}
	if k, ok := d.folded[foldCase(name)]; ok {
		return k
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
	s.filemode = s.w.config.Bool("core.filemode", defaultFileMode)
	s.trustCtime = s.w.config.Bool("core.trustctime", true)
	s.symlinks = s.w.config.Bool("core.symlinks", defaultSymlinks)
	s.names = hostNameRules(s.w.config)
	if s.names.ignoreCase {
		s.foldedDirs = make(map[string]string, len(s.dirs))
		for dir, node := range s.dirs {
			s.foldedDirs[foldCase(dir)] = dir
			node.folded = make(map[string]int, len(node.names))
			for k, name := range node.names {
				node.folded[foldCase(name)] = k
			}
		}
	}
	var err error
	if s.startSkip, err = s.w.startSkipWorktree(s.staged); err != nil {
		return nil, err
	}
	for i := range entries {
		if e := &entries[i]; e.Mode == record.ModeTree || s.skipWorktree(e) {
			// Sparse folders and skip-worktree files are left alone, as
			// git add -A does: their recorded state is the index's.
			s.results[i] = trackedResult{mode: e.Mode, hash: e.Hash}
		}
	}
	s.attrs = s.w.newAttrRules(indexedAttrDirs(s.idx))
	s.attrs.staged = stagedIn(s.staged)
	s.hasher = s.w.filters.NewPathHasher(ctx)
	s.ignoreFiles = map[string]record.Hash{}
	base, err := s.w.baseViewIgnores(s.names.ignoreCase)
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
	var walk func(dir string, ign viewIgnores) error
	walk = func(dir string, ign viewIgnores) error {
		return s.readDir(dir, ign, func(sub string, st viewIgnores) {
			pool.Go(func() error { return walk(sub, st) })
		})
	}
	pool.Go(func() error { return walk("", base) })
	stop := s.reportProgress(len(entries))
	err = pool.Wait()
	stop()
	if err != nil {
		_, _ = s.hasher.Wait() // no git left waiting for more paths
		return nil, err
	}
	s.keepUnreadable()
	converted, err := s.hashConverted(ctx)
	if err != nil {
		return nil, err
	}
	// found is the blob of a walked file: the walk's, or git's for a
	// file git converts; ok is false for one that vanished before git read it.
	found := func(path string, mode record.Mode, h record.Hash) (record.Hash, bool) {
		if !h.IsZero() || !mode.IsFile() {
			return h, true
		}
		h, ok := converted[path]
		return h, ok
	}

	if s.reuseTrees {
		s.unchanged = s.unchangedTrees(converted)
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
	if converted != nil {
		kept := flat[:0]
		for _, e := range flat {
			if h, ok := found(e.path, e.mode, e.hash); ok {
				e.hash = h
				kept = append(kept, e)
			}
		}
		flat = kept
	}
	st := &s.snap.Stats
	st.Tracked, st.Reused, st.Cached, st.Hashed = len(entries), s.stats.Reused, s.stats.Cached, s.stats.Hashed
	st.Untracked, st.Dirs, st.DirsCached = len(s.untracked), s.stats.Dirs, s.stats.DirsCached
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
// in one open folder.
func (s *scan) statTracked(dir *folder, node *dirNode) error {
	var reused, cached, hashed int
	for k, i := range node.files {
		e := &s.idx.Entries[i]
		if e.Mode == record.ModeTree || s.skipWorktree(e) {
			continue // decided up front
		}
		var st fileStat
		if err := dir.lstat(node.names[k], &st); err != nil {
			if isGone(err) {
				continue // deleted
			}
			if s.unreadableFile(e.Path, err) {
				s.results[i] = trackedResult{mode: e.Mode, hash: e.Hash}
				continue
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
		if mode == e.Mode && s.statMatches(e, &st) && !s.w.filterChanged(s.attrs, e.Path) {
			s.results[i] = trackedResult{mode: mode, hash: e.Hash}
			reused++
			continue
		}
		fs, how, err := s.record(e.Path, s.w.Abs(e.Path), &st, mode)
		if s.unreadableFile(e.Path, err) {
			s.results[i] = trackedResult{mode: e.Mode, hash: e.Hash}
			continue
		}
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
func (s *scan) modeOf(st *fileStat, indexMode record.Mode) record.Mode {
	switch st.kind {
	case kindFile:
		if !s.symlinks && indexMode == record.ModeSymlink {
			// core.symlinks=false: git checked the link out as a plain
			// file holding its target, and it stays a link (ce_mode_from_stat).
			return record.ModeSymlink
		}
		if !s.filemode {
			// git's ce_mode_from_stat: without a trusted executable bit a
			// file keeps its index mode, and anything else becomes 100644.
			if indexMode.IsFile() {
				return indexMode
			}
			return record.ModeFile
		}
		if st.exec {
			return record.ModeExec
		}
		return record.ModeFile
	case kindSymlink:
		return record.ModeSymlink
	case kindDir:
		return record.ModeTree
	}
	return record.ModeNone
}

// statMatches is git's ie_match_stat for the default core.checkStat, plus
// its racily-clean rule: an entry whose mtime is not older than the index
// file could have changed within the same timestamp tick, so it is not trusted.
func (s *scan) statMatches(e *IndexEntry, st *fileStat) bool {
	if !e.HasStat || e.IntentToAdd {
		return false // an intent-to-add entry has no content yet (ie_match_stat)
	}
	// A racily clean entry git smudged when writing the index has size 0;
	// unless its blob really is empty, the file must be looked at.
	if e.Size == 0 && e.Hash != emptyBlob {
		return false
	}
	if uint32(st.mtimeSec) != e.MtimeSec || uint32(st.mtimeNsec) != e.MtimeNsec ||
		uint32(st.size) != e.Size || uint32(st.ino) != e.Ino ||
		st.uid != e.UID || st.gid != e.GID {
		return false
	}
	if s.trustCtime &&
		(uint32(st.ctimeSec) != e.CtimeSec || uint32(st.ctimeNsec) != e.CtimeNsec) {
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
func (s *scan) record(rel, full string, st *fileStat, mode record.Mode) (record.FileState, source, error) {
	key := keyOf(st)
	s.mu.Lock()
	ce, ok := s.cache[rel] // s.cache is never written during the scan
	s.mu.Unlock()
	if ok && ce.key == key && !s.w.filterChanged(s.attrs, rel) {
		// Freshened by Reuse: the snapshot names it.
		if conv, cacheable := s.w.conversionSignature(s.attrs, rel, ce.auto); cacheable && conv == ce.conv && s.w.db.Reuse(ce.hash) {
			s.mu.Lock()
			s.fresh[rel] = ce
			s.mu.Unlock()
			return record.FileState{Path: rel, Mode: mode, Hash: ce.hash, Size: st.size}, fromCache, nil
		}
	}
	kind, unsure := s.attrs.conversion(rel, s.w.autocrlf)
	auto := !unsure && kind == convAuto
	conv, cacheable := s.w.conversionSignature(s.attrs, rel, auto)
	// A file under a filter the run's view configures otherwise is hashed
	// as the run converts: not an id for the stat cache, which runs share.
	cacheable = cacheable && !s.w.filterChanged(s.attrs, rel)
	if mode.IsFile() && st.size <= s.w.maxSize() && (kind != convNone || unsure) {
		// Converted here when it can be (filters.go), else by git in one
		// process for the whole walk.
		h, ok, err := s.w.withoutGit(s.attrs, rel, full, st.size, true)
		if err == nil && ok {
			s.remember(rel, cacheEntry{key: key, hash: h, conv: conv, auto: auto}, cacheable)
			return record.FileState{Path: rel, Mode: mode, Hash: h, Size: st.size}, fromRead, nil
		}
		if errors.Is(err, os.ErrPermission) {
			return record.FileState{Path: rel}, fromRead, err // git could not read it either
		}
		s.leaveToGit(rel, st, conv, auto, cacheable)
		return record.FileState{Path: rel, Mode: mode, Size: st.size}, fromRead, nil
	}
	fs, err := s.w.storeFile(rel, full, st.size, mode, st.kind == kindFile, s.attrs)
	// A file rewritten or replaced while it was read is read again, with
	// fresh stat data, a few times before it is given up on.
	for try := 0; try < 5 && (errors.Is(err, odb.ErrChanged) || errors.Is(err, os.ErrNotExist)); try++ {
		var again fileStat
		if lerr := lstatPath(full, &again); lerr != nil {
			break // really gone
		}
		if try > 0 {
			time.Sleep(time.Duration(try) * time.Millisecond)
		}
		*st, key = again, keyOf(&again)
		if mode = s.modeOf(&again, mode); mode == record.ModeNone || mode == record.ModeTree {
			return record.FileState{Path: rel}, fromRead, nil
		}
		fs, err = s.w.storeFile(rel, full, st.size, mode, st.kind == kindFile, s.attrs)
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
	s.remember(rel, cacheEntry{key: key, hash: fs.Hash, conv: conv, auto: auto}, cacheable)
	return fs, fromRead, nil
}

// remember keeps e for the next snapshot's stat cache when cacheable.
func (s *scan) remember(rel string, e cacheEntry, cacheable bool) {
	if !cacheable {
		return
	}
	s.mu.Lock()
	s.fresh[rel] = e
	s.mu.Unlock()
}

func (s *scan) skip(rel, why string) {
	s.mu.Lock()
	// The list is JSON: a name that is not UTF-8 is shown, not carried.
	s.snap.Skipped = append(s.snap.Skipped, record.Skipped{Path: strings.ToValidUTF8(rel, "\uFFFD"), Reason: why})
	s.mu.Unlock()
}

// readDir lists one folder: it decides the state of the tracked entries in
// it, records its untracked files and queues subfolders with spawn.
func (s *scan) readDir(dir string, ign viewIgnores, spawn func(string, viewIgnores)) error {
	full := s.w.repo.WorkTree
	if dir != "" {
		full = s.w.Abs(dir)
	}
	if s.watch != nil {
		s.watch(dir) // before reading it: a change after this is an event
	}
	// Subfolders are entered only as folders listed by their parent: one
	// replaced by a symlink meanwhile is not followed.
	fd, err := openFolder(full, dir == "")
	if errors.Is(err, errFolderGone) {
		return nil // removed while walking; its tracked entries are deleted
	}
	if dir != "" && errors.Is(err, os.ErrPermission) {
		s.unreadableFolder(dir)
		return nil
	}
	if err != nil {
		return fmt.Errorf("read folder %s: %w", dir, err)
	}
	defer fd.close()
	node := s.dirs[dir]
	if node != nil {
		if err := s.statTracked(fd, node); err != nil {
			return err
		}
	}
	list, err := s.listFolder(fd, dir)
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
	var ignData []byte
	var ignHash record.Hash
	ignFound := false
	if !ign.now.excludedDir() {
		// git reads no .gitignore inside an ignored folder.
		for _, de := range list {
			if de.name != ".gitignore" {
				continue
			}
			kind := de.kind
			if kind == kindUnknown {
				var st fileStat
				if fd.lstat(de.name, &st) == nil {
					kind = st.kind
				}
			}
			if kind == kindFile {
				data, err := os.ReadFile(s.w.Abs(join(".gitignore")))
				if err == nil {
					ignData, ignFound = data, true
					if ignHash, err = s.w.db.Write(odb.TypeBlob, data); err != nil {
						return err
					}
					s.mu.Lock()
					s.ignoreFiles[join(".gitignore")] = ignHash
					s.mu.Unlock()
				}
			}
			break
		}
	}
	ign = s.w.pushFolder(ign, dir, ignData, ignHash, ignFound, s.names.ignoreCase)
	for _, de := range list {
		// diskName opens the entry; name is how git spells it (composed,
		// or the index's spelling on a case-insensitive file system).
		diskName, name := de.name, s.names.fromDisk(de.name)
		if s.names.isDotGit(name) {
			continue
		}
		kind := de.kind
		if kind == kindUnknown {
			var st fileStat
			if err := fd.lstat(diskName, &st); err != nil {
				s.unreadableFile(join(name), err)
				continue
			}
			kind = st.kind
		}
		isDir := kind == kindDir
		i := node.find(name)
		if i < 0 && s.names.ignoreCase {
			if k := node.findFold(name); k >= 0 {
				i, name = int(node.files[k]), node.names[k]
			}
		}
		if i >= 0 {
			e := &s.idx.Entries[i]
			if !isDir || e.Mode == record.ModeGitlink || e.Mode == record.ModeTree {
				continue // statTracked handles it
			}
			// A tracked file replaced by a folder: walk the folder as untracked.
		}
		if !isDir && kind != kindFile && kind != kindSymlink {
			continue
		}
		rel := join(name)
		if isDir && s.dirs[rel] == nil && s.names.ignoreCase {
			// git spells a folder the index knows in another case as the index does.
			if canon, ok := s.foldedDirs[foldCase(rel)]; ok {
				rel, name = canon, canon[len(canon)-len(name):]
			}
		}
		if isDir && s.dirs[rel] != nil {
			// A folder holding tracked files is walked even when it is
			// ignored, but then all its untracked content is ignored too.
			spawn(rel, ign.enter(rel, name))
			continue
		}
		if ign.ignored(rel, name, isDir) || (s.exclude && s.w.excluded(rel)) {
			continue
		}
		// A name git itself refuses to check out (.GIT, git~1, ".git.")
		// would make every reader refuse the snapshot: listed, not recorded.
		if err := record.ValidateTreeName(name); err != nil {
			s.skip(rel, "a name git refuses (another spelling of .git)")
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
		var st fileStat
		if err := fd.lstat(diskName, &st); err != nil {
			s.unreadableFile(rel, err) // else vanished
			continue
		}
		mode := s.modeOf(&st, record.ModeNone)
		if mode == record.ModeNone || mode == record.ModeTree {
			continue
		}
		fs, how, err := s.record(rel, s.w.Abs(rel), &st, mode)
		if s.unreadableFile(rel, err) {
			continue
		}
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

// skipWorktree reports whether the walk leaves e alone as skip-worktree:
// only when the run's start had the bit too (see view.go).
func (s *scan) skipWorktree(e *IndexEntry) bool {
	return e.SkipWorktree && (s.startSkip == nil || s.startSkip[e.Path])
}
