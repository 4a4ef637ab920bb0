package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
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
	// Unmerged holds the index's conflict entries and the operation in
	// progress; nil when the index has none.
	Unmerged *record.Unmerged
	// View is the tree of the view the snapshot saw (see view.go); zero
	// unless Options.RecordView or ViewStart asked for it.
	View  record.Hash
	Stats Stats
}

// Stats counts the work a snapshot did.
type Stats struct {
	Tracked   int // index entries looked at
	Reused    int // blob ids taken from the index without reading the file
	Cached    int // blob ids taken from the stat cache
	Hashed    int // files read and hashed
	Untracked int // untracked files recorded
	Dirs      int // folders read
	// DirsCached counts the folders among them whose names came from the
	// folder cache instead of a listing (see dircache.go).
	DirsCached int
	Trees      int // tree objects written
	// TreesFromIndex counts folders whose tree came from the index's
	// cache-tree instead of being built (see cachetree.go).
	TreesFromIndex int
}

// Snapshot records HEAD, the index and the work tree (untracked files
// included, ignored excluded). It writes blobs of changed and untracked
// files and the trees, and never writes the index. An index with conflict
// entries is recorded as unmerged.go describes.
//
// When this process runs a watch daemon, or Options.UseDaemon is set and
// another process runs one for this work tree, the snapshot comes from the
// daemon's file watcher at the cost of the paths changed since its last
// one; if the daemon cannot answer, Snapshot walks the tree itself.
func (w *Workspace) Snapshot(ctx context.Context) (*Snapshot, error) {
	return w.snapshotVia(ctx, walkOptions{})
}

// SnapshotForHead is Snapshot for a caller about to compare the work tree
// with HEAD's tree (a run's first checkpoint): a walk also keeps the
// index's trees of the folders it found changed (see headtrees.go). A
// snapshot from the watch daemon does not.
func (w *Workspace) SnapshotForHead(ctx context.Context) (*Snapshot, error) {
	return w.snapshotVia(ctx, walkOptions{keepHeadTrees: true})
}

// walkOptions tune one walk of the work tree.
type walkOptions struct {
	watch         func(dir string) // called for each folder just before it is read
	keepHeadTrees bool             // keep the index's trees of changed folders
}

func (w *Workspace) snapshotVia(ctx context.Context, o walkOptions) (*Snapshot, error) {
	if d := w.ownDaemon(); d != nil {
		snap, err := d.Snapshot(ctx)
		if err != nil || w.frozen == nil || snap.View == w.frozen.tree {
			return snap, err
		}
		return w.snapshot(ctx, o) // the daemon sees today's view, not the run's
	}
	if w.opts.UseDaemon {
		snap, err := w.askDaemon(ctx)
		if err == nil && (w.frozen == nil || snap.View == w.frozen.tree) {
			return snap, nil
		}
		if !errors.Is(err, ErrNoDaemon) {
			w.log.Info("walking the work tree: the watch daemon did not answer", "err", err)
		}
	}
	return w.snapshot(ctx, o)
}

// SnapshotWatched takes a full snapshot that also places wt's watches: each
// folder is watched just before the walk reads it, so every later change
// is an event, and the snapshot becomes wt's base. It costs no more than
// Snapshot plus one inotify watch per folder.
func (w *Workspace) SnapshotWatched(ctx context.Context, wt *Watcher) (*Snapshot, error) {
	snap, err := w.snapshot(ctx, walkOptions{watch: wt.watchDir})
	if err != nil {
		return nil, err
	}
	return snap, wt.setBase(snap, false)
}

func (w *Workspace) snapshot(ctx context.Context, o walkOptions) (*Snapshot, error) {
	// The new blobs and trees are stored together at the end: as one pack
	// when there are many, rather than a file each.
	w.db.StartBatch()
	snap, err := w.walkSnapshot(ctx, o)
	if berr := w.db.EndBatch(); berr != nil && err == nil {
		return nil, fmt.Errorf("store snapshot objects: %w", berr)
	}
	return snap, err
}

func (w *Workspace) walkSnapshot(ctx context.Context, o walkOptions) (*Snapshot, error) {
	start := now()
	head, err := w.ReadHead(ctx)
	if err != nil {
		return nil, err
	}
	idx, err := w.ReadIndex(ctx)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Head: head}
	tIndex := time.Now()

	// A conflicted index is recorded too: see unmerged.go.
	staged := idx
	idx, oursFlat, unmerged := splitUnmerged(idx)
	snap.Unmerged = w.unmergedRecord(unmerged)
	if h, ok := cachedIndexTree(idx); ok && unmerged == nil && w.db.Reuse(h) {
		// git trusts its cache-tree for write-tree and commit; so does
		// gitguard, which saves building every folder's tree twice.
		snap.IndexTree = h
	} else {
		if oursFlat == nil {
			oursFlat = indexFlat(idx)
		}
		snap.IndexTree, err = w.writeFlatTree(oursFlat, &snap.Stats)
		if err != nil {
			return nil, fmt.Errorf("write index tree: %w", err)
		}
	}
	s := &scan{w: w, idx: idx, staged: staged, cache: loadStatCache(w.StateDir()), fresh: statCache{}, snap: snap, watch: o.watch,
		reuseTrees: unmerged == nil}
	if s.folders.on, s.folders.dev = dirTimesKept(w.repo.WorkTree); s.folders.on {
		s.folders.old, s.folders.fresh = loadDirCache(w.StateDir()), dirCache{}
	}
	flat, err := s.run(ctx)
	if err != nil {
		return nil, err
	}
	if w.opts.RecordView || w.frozen != nil {
		if snap.View, err = w.writeView(staged, s.ignoreFiles); err != nil {
			return nil, fmt.Errorf("write view: %w", err)
		}
	}
	tWalk := time.Now()
	var keeping sync.WaitGroup
	if o.keepHeadTrees {
		keeping.Go(s.keepIndexTrees) // beside the work tree's trees
	}
	snap.Worktree, err = w.writeFlatTreeReusing(flat, s.unchanged, &snap.Stats)
	keeping.Wait()
	if err != nil {
		return nil, fmt.Errorf("write worktree tree: %w", err)
	}
	// Only paths seen in this walk are kept, so entries of deleted files
	// do not pile up in the cache forever.
	if err := s.fresh.save(w.StateDir(), start); err != nil {
		w.log.Warn("stat cache not saved", "err", err)
	}
	if err := s.saveFolders(start); err != nil {
		w.log.Warn("folder cache not saved", "err", err)
	}
	w.log.Debug("snapshot", "walker", walkerName, "index", tIndex.Sub(start), "walk", tWalk.Sub(tIndex),
		"trees", time.Since(tWalk), "stats", fmt.Sprintf("%+v", snap.Stats))
	return snap, nil
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

// MaxFileSize is the size limit: files larger are recorded by hash, size
// and mode only.
func (w *Workspace) MaxFileSize() int64 { return w.maxSize() }

func (w *Workspace) maxSize() int64 {
	if w.opts.MaxFileSize < 0 {
		return 1<<63 - 1
	}
	return w.opts.MaxFileSize
}

// storeFile writes the blob of one file (a symlink's target, a file's
// bytes) and returns its state. Files above the size limit are only hashed.
// plain says the file on disk is a regular file: a symlink recorded from
// one (core.symlinks=false) holds its target as content, as git reads it.
// A file whose content git converts (rules) is hashed by git.
func (w *Workspace) storeFile(rel, full string, size int64, mode record.Mode, plain bool, rules *attrRules) (record.FileState, error) {
	fs := record.FileState{Path: rel, Mode: mode, Size: size}
	var err error
	switch {
	case mode == record.ModeSymlink && plain:
		var target []byte
		target, err = os.ReadFile(full)
		if err == nil {
			fs.Size = int64(len(target))
			fs.Hash, err = w.db.Write(odb.TypeBlob, target)
		}
	case mode == record.ModeSymlink:
		var target string
		target, err = os.Readlink(full)
		if err == nil {
			fs.Size = int64(len(target))
			fs.Hash, err = w.db.Write(odb.TypeBlob, []byte(target))
		}
	case size > w.maxSize():
		fs.Hash, err = hashFile(full, size)
	case w.needsGit(rules, rel):
		// Recorded as git would stage it; see filters.go.
		var ok bool
		if fs.Hash, ok, err = w.withoutGit(rules, rel, full, size, true); ok || err != nil {
			break
		}
		var ids []record.Hash
		if ids, err = w.filters.HashPaths(context.Background(), []string{rel}, true); err == nil {
			fs.Hash = ids[0]
			w.db.AdoptLoose(ids)
		}
	default:
		fs.Hash, err = w.db.WriteFile(full, size)
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
