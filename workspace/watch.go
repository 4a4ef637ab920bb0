package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// ErrCannotVouch is returned by Watcher.Snapshot when the watcher cannot
// vouch that it saw every change since its base (events overflowed, it
// failed, ignore rules or the index changed): the caller takes a full
// snapshot instead. It never means a change was lost.
var ErrCannotVouch = errors.New("file watcher cannot vouch for every change")

// Watcher follows changes to the work tree with inotify (fsnotify), so
// that a snapshot after a base snapshot costs O(changed paths) instead of a
// walk of the whole tree. It is used by long-lived processes (gitguard run)
// around the calls they record. It is safe for concurrent use.
//
// Soundness: watches are placed on every folder before the base snapshot
// is taken, so a change after the snapshot read a folder is an event; a
// folder created later is watched and walked whole; events are drained up
// to a cookie file written just before Snapshot reads them, as git's
// fsmonitor does; anything the watcher cannot account for (an overflow of
// the kernel queue, a watch that failed, a changed .gitignore, exclude file
// or index) makes Snapshot return ErrCannotVouch.
type Watcher struct {
	w   *Workspace
	fsw *fsnotify.Watcher

	mu      sync.Mutex
	changed map[string]bool // paths with events since the base
	newDirs map[string]bool // folders created since the base: walked whole
	broken  error           // set once the watcher cannot vouch
	base    *Snapshot
	armedAt time.Time   // when the first base was recorded
	stamps  []fileStamp // the index, ignore and attributes files outside the work tree, at the base
	cookies map[string]chan struct{}
	seq     int
	done    chan struct{}
	// cmu guards cookie, the watcher's cookie file (see sync), whose
	// names carry the process and the watcher's id in it.
	cmu    sync.Mutex
	cookie string
	id     int64
	// times holds when each path last raised an event, complete from
	// timesFrom (zero: from armedAt); see changetimes.go.
	times     map[string]time.Time
	timesFrom time.Time
}

// fileStamp tells whether a file changed, by the stat data the stat cache
// trusts: git replaces the index and writers replace config files by
// rename, which a new inode shows even when size and times look the same.
type fileStamp struct {
	path string
	key  statKey
	ok   bool
}

func stamp(path string) fileStamp {
	if filepath.Base(path) == "pack" && filepath.Base(filepath.Dir(path)) == "objects" {
		return packStamp(path)
	}
	var st fileStat
	if path == "" || statPath(path, &st) != nil {
		return fileStamp{path: path}
	}
	return fileStamp{path: path, key: keyOf(&st), ok: true}
}

func (w *Workspace) cookieDir() string { return filepath.Join(w.StateDir(), "watch") }

// ErrNoWatcher is returned by Workspace.Watch and Daemon.Listen where
// gitguard has no file watcher it trusts to see every change: on every
// platform but Linux (kqueue on macOS needs a descriptor per file, and the
// watcher's soundness argument is made for inotify). Snapshots then walk
// the work tree, which is always correct.
var ErrNoWatcher = errors.New("no file watcher on this platform: every snapshot walks the work tree")

// Watch starts watching the work tree: the top folder, every folder of
// tree (the newest recorded work tree; zero for none), and the folders
// found since. Call SetBase with the snapshot taken after Watch returns.
func (w *Workspace) Watch(tree record.Hash) (*Watcher, error) {
	if err := watchable(w.repo.WorkTree); err != nil {
		return nil, fmt.Errorf("watch the work tree: %w", err)
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch the work tree: %w", err)
	}
	wt := &Watcher{w: w, fsw: fsw, changed: map[string]bool{}, newDirs: map[string]bool{},
		cookies: map[string]chan struct{}{}, done: make(chan struct{}), id: watchers.Add(1)}
	if err := os.MkdirAll(w.cookieDir(), 0o755); err != nil {
		fsw.Close()
		return nil, err
	}
	removeStaleCookies(w.cookieDir())
	dirs := []string{""}
	if !tree.IsZero() {
		if err := treeDirs(w.db, tree, "", &dirs); err != nil {
			fsw.Close()
			return nil, err
		}
	}
	for _, d := range dirs {
		if err := fsw.Add(w.Abs(d)); err != nil && !errors.Is(err, os.ErrNotExist) {
			wt.broken = err
		}
	}
	if err := fsw.Add(w.cookieDir()); err != nil {
		fsw.Close()
		return nil, err
	}
	go wt.loop()
	return wt, nil
}

func treeDirs(db *odb.DB, tree record.Hash, prefix string, out *[]string) error {
	entries, err := db.ReadTreeOrEmpty(tree)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Mode == record.ModeTree {
			*out = append(*out, prefix+e.Name)
			if err := treeDirs(db, e.Hash, prefix+e.Name+"/", out); err != nil {
				return err
			}
		}
	}
	return nil
}

func (wt *Watcher) loop() {
	cookies := wt.w.cookieDir() + string(filepath.Separator)
	for {
		select {
		case <-wt.done:
			return
		case err, ok := <-wt.fsw.Errors:
			if !ok {
				return
			}
			wt.fail(err)
		case ev, ok := <-wt.fsw.Events:
			if !ok {
				return
			}
			if name, isCookie := strings.CutPrefix(ev.Name, cookies); isCookie {
				wt.mu.Lock()
				if ch := wt.cookies[name]; ch != nil {
					close(ch)
					delete(wt.cookies, name)
				}
				wt.mu.Unlock()
				continue
			}
			rel, err := filepath.Rel(wt.w.repo.WorkTree, ev.Name)
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			rel = filepath.ToSlash(rel)
			if rel == ".git" || strings.HasPrefix(rel, ".git/") {
				continue
			}
			wt.mu.Lock()
			wt.changed[rel] = true
			wt.noteEvent(rel, time.Now())
			wt.mu.Unlock()
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
					wt.addTree(rel)
				}
			}
		}
	}
}

// addTree watches a folder created since the base and every folder in it,
// and marks them to be walked: files made before the watch was in place
// produced no event.
func (wt *Watcher) addTree(rel string) {
	if isNestedRepo(wt.w.Abs(rel)) {
		wt.fail(fmt.Errorf("a repository appeared at %s", rel))
		return
	}
	if err := wt.fsw.Add(wt.w.Abs(rel)); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			wt.fail(err)
		}
		return
	}
	wt.mu.Lock()
	wt.newDirs[rel] = true
	wt.mu.Unlock()
	entries, err := os.ReadDir(wt.w.Abs(rel))
	if err != nil {
		return // removed again: its Remove event says so
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != ".git" {
			wt.addTree(rel + "/" + e.Name())
		}
	}
}

func (wt *Watcher) fail(err error) {
	wt.mu.Lock()
	if wt.broken == nil {
		if errors.Is(err, fsnotify.ErrEventOverflow) {
			err = fmt.Errorf("the kernel's event queue overflowed")
		}
		wt.broken = err
	}
	wt.mu.Unlock()
}

// Fail makes the watcher give up vouching, as an overflow would. Tests and
// callers that know of a change behind the watcher's back use it.
func (wt *Watcher) Fail(err error) { wt.fail(err) }

// Close stops watching and removes the watcher's cookie file.
func (wt *Watcher) Close() error {
	select {
	case <-wt.done:
	default:
		close(wt.done)
	}
	err := wt.fsw.Close()
	wt.cmu.Lock()
	if wt.cookie != "" {
		_ = os.Remove(wt.cookie)
		wt.cookie = ""
	}
	wt.cmu.Unlock()
	return err
}

// SetBase records snap, taken after Watch returned, as the state changes
// are relative to. Folders of snap the watcher does not watch yet are
// watched and walked at the next Snapshot. (SnapshotWatched does both in
// one walk.)
func (wt *Watcher) SetBase(snap *Snapshot) error { return wt.setBase(snap, true) }

// watchDir is the walk's hook: it watches one folder of the work tree.
func (wt *Watcher) watchDir(dir string) {
	if err := wt.fsw.Add(wt.w.Abs(dir)); err != nil && !errors.Is(err, os.ErrNotExist) {
		wt.fail(err)
	}
}

func (wt *Watcher) setBase(snap *Snapshot, addMissing bool) error {
	if !addMissing {
		return wt.recordBase(snap)
	}
	var dirs []string
	if err := treeDirs(wt.w.db, snap.Worktree, "", &dirs); err != nil {
		return err
	}
	watched := map[string]bool{}
	for _, p := range wt.fsw.WatchList() {
		if rel, err := filepath.Rel(wt.w.repo.WorkTree, p); err == nil {
			watched[filepath.ToSlash(rel)] = true
		}
	}
	for _, d := range dirs {
		if !watched[d] {
			wt.addTree(d)
		}
	}
	return wt.recordBase(snap)
}

// stampedFiles are the files outside the work tree that decide what a
// snapshot records: a change to any of them means a full walk.
//
// The pack folder is among them: git gc repacks, and may prune loose
// objects that only the base snapshot names (its trees are in no
// checkpoint yet when it served status or check), which a snapshot built
// on the base would then name without having them. Only the packs git
// writes, and gitguard's prune, count (see packStamp).
func (wt *Watcher) stampedFiles() []string {
	info := filepath.Join(wt.w.repo.CommonDir, "info")
	return []string{filepath.Join(wt.w.repo.GitDir, "index"), wt.w.opts.ExcludesFile,
		filepath.Join(info, "exclude"), wt.w.opts.AttributesFile, filepath.Join(info, "attributes"),
		filepath.Join(wt.w.repo.CommonDir, "objects", "pack")}
}

// maxBaseAge bounds how long objects written by a watcher's arming walk
// are built upon: far below git gc's two-week grace for unreachable
// objects, so that they are never pruned from under a snapshot.
const maxBaseAge = time.Hour

func (wt *Watcher) recordBase(snap *Snapshot) error {
	stamps := make([]fileStamp, 0, 5)
	for _, f := range wt.stampedFiles() {
		stamps = append(stamps, stamp(f))
	}
	wt.mu.Lock()
	defer wt.mu.Unlock()
	wt.base, wt.stamps = snap, stamps
	if wt.armedAt.IsZero() {
		wt.armedAt = time.Now()
	}
	return nil
}

// sync waits until the watcher has seen every event that happened before
// it was called, by naming a cookie file anew and waiting for the event
// of its new name.
func (wt *Watcher) sync(ctx context.Context) error {
	wt.mu.Lock()
	wt.seq++
	name := "cookie-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(wt.id, 10) + "-" + strconv.Itoa(wt.seq)
	ch := make(chan struct{})
	wt.cookies[name] = ch
	wt.mu.Unlock()
	if err := wt.nameCookie(filepath.Join(wt.w.cookieDir(), name)); err != nil {
		return err
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(5 * time.Second):
		return fmt.Errorf("the watcher did not report its cookie file")
	}
}

// nameCookie gives the watcher's cookie file the name path: it renames the
// file the last sync named, which raises the event a new file raises and
// makes no file (a new one costs an inode, slow on some file systems), or
// makes one when there is none.
func (wt *Watcher) nameCookie(path string) error {
	wt.cmu.Lock()
	defer wt.cmu.Unlock()
	if wt.cookie == "" || os.Rename(wt.cookie, path) != nil {
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			return err
		}
	}
	wt.cookie = path
	return nil
}

// watchers numbers the watchers of the process, so that two (the daemon's
// old one, watching on until its new one is armed) never name a cookie
// file alike.
var watchers atomic.Int64

// staleCookie is the age from which a cookie file is taken for the one a
// watcher's process left when it died: a live watcher's keeps the time it
// was made, so one running longer makes a new one when its own is gone.
const staleCookie = 24 * time.Hour

// removeStaleCookies removes the cookie files dead processes left in dir.
func removeStaleCookies(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "cookie-") || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleCookie {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// changedStamp returns an error naming the first of the stamped files that
// changed since, nil when none did.
func changedStamp(stamps []fileStamp) error {
	for _, s := range stamps {
		if now := stamp(s.path); now != s {
			return fmt.Errorf("%w: %s changed", ErrCannotVouch, s.path)
		}
	}
	return nil
}

// Snapshot returns the work tree as of now, computed from the base
// snapshot and the paths the watcher saw change; it returns ErrCannotVouch
// (wrapped) whenever a full snapshot is needed instead. The result becomes
// the new base.
func (wt *Watcher) Snapshot(ctx context.Context) (*Snapshot, error) {
	// The files outside the work tree are looked at while the cookie goes
	// round: either tells what is true now.
	wt.mu.Lock()
	stamps := wt.stamps
	wt.mu.Unlock()
	stamped := make(chan error, 1)
	go func() { stamped <- changedStamp(stamps) }()
	if err := wt.sync(ctx); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCannotVouch, err)
	}
	wt.mu.Lock()
	base, broken, armedAt := wt.base, wt.broken, wt.armedAt
	changed, newDirs := wt.changed, wt.newDirs
	wt.changed, wt.newDirs = map[string]bool{}, map[string]bool{}
	wt.mu.Unlock()
	if base == nil {
		return nil, fmt.Errorf("%w: no base snapshot", ErrCannotVouch)
	}
	if broken != nil {
		return nil, fmt.Errorf("%w: %w", ErrCannotVouch, broken)
	}
	if len(base.Skipped) > 0 {
		// What the walk could not read (unreadable.go) is read again by a walk.
		return nil, fmt.Errorf("%w: %s was skipped", ErrCannotVouch, base.Skipped[0].Path)
	}
	if time.Since(armedAt) > maxBaseAge {
		return nil, fmt.Errorf("%w: armed more than %s ago", ErrCannotVouch, maxBaseAge)
	}
	if err := <-stamped; err != nil {
		return nil, err
	}
	for p := range changed {
		if p == ".gitignore" || strings.HasSuffix(p, "/.gitignore") || p == ".gitattributes" || strings.HasSuffix(p, "/.gitattributes") {
			return nil, fmt.Errorf("%w: %s changed", ErrCannotVouch, p)
		}
	}
	head, err := wt.w.ReadHead(ctx)
	if err != nil {
		return nil, err
	}
	ign, err := baseIgnores(wt.w.repo.CommonDir, wt.w.opts.ExcludesFile, hostNameRules(wt.w.config).ignoreCase)
	if err != nil {
		return nil, err
	}
	paths := map[string]bool{}
	for p := range changed {
		paths[p] = true
	}
	for d := range newDirs {
		if err := wt.walkNew(d, paths); err != nil {
			return nil, err
		}
	}
	// Whatever decides the view is stamped (files outside the work tree,
	// the index), in the daemon's fingerprint (configuration) or makes it
	// walk (.gitignore): the base's view is still the one seen.
	snap := &Snapshot{Head: head, IndexTree: base.IndexTree, Unmerged: base.Unmerged, View: base.View}
	var states []record.FileState
	over := map[string]record.FileState{}
	for _, o := range base.Oversize {
		over[o.Path] = o
	}
	for p := range paths {
		tracked, err := wt.w.db.Lookup(base.IndexTree, p)
		if err != nil {
			return nil, err
		}
		if tracked.Mode == record.ModeGitlink {
			return nil, fmt.Errorf("%w: submodule %s changed", ErrCannotVouch, p)
		}
		delete(over, p)
		fs, oversize, err := wt.w.Capture(p, true)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCannotVouch, err)
		}
		switch {
		case fs.Mode == record.ModeTree:
			if err := readable(wt.w.Abs(p)); err != nil {
				// chmod: what is below is not readable now, which a walk reports
				return nil, fmt.Errorf("%w: folder %s: %w", ErrCannotVouch, p, err)
			}
			continue // a folder: its files have events of their own, or it is new and walked
		case !fs.Exists():
			states = append(states, record.FileState{Path: p})
		case !tracked.Exists() && wt.ignored(ign, p):
			states = append(states, record.FileState{Path: p}) // ignored: never in the tree
		case oversize:
			over[p] = fs
			states = append(states, record.FileState{Path: p})
		default:
			states = append(states, fs)
			snap.Stats.Hashed++
		}
	}
	for _, o := range over {
		snap.Oversize = append(snap.Oversize, o)
	}
	snap.Worktree, err = wt.w.db.Overlay(base.Worktree, states)
	if err != nil {
		return nil, err
	}
	wt.mu.Lock()
	wt.base = snap
	wt.mu.Unlock()
	return snap, nil
}

// readable returns the error opening the folder full for reading, if it is
// a lack of permission.
func readable(full string) error {
	f, err := os.Open(full)
	if err == nil {
		return f.Close()
	}
	if errors.Is(err, os.ErrPermission) {
		return err
	}
	return nil
}

// walkNew adds every file below a new folder to paths.
func (wt *Watcher) walkNew(dir string, paths map[string]bool) error {
	entries, err := os.ReadDir(wt.w.Abs(dir))
	if errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("%w: folder %s: %w", ErrCannotVouch, dir, err)
	}
	if err != nil {
		paths[dir] = true // gone again: recorded as absent
		return nil
	}
	for _, e := range entries {
		rel := dir + "/" + e.Name()
		if e.Name() == ".git" {
			return fmt.Errorf("%w: a repository appeared at %s", ErrCannotVouch, dir)
		}
		if e.IsDir() {
			if err := wt.walkNew(rel, paths); err != nil {
				return err
			}
			continue
		}
		paths[rel] = true
	}
	return nil
}

// ignored applies the ignore rules (and the configured excludes) to an
// untracked path: any ignored folder on the way ignores it.
func (wt *Watcher) ignored(base *ignoreStack, path string) bool {
	if MatchAny(wt.w.opts.Exclude, path) {
		return true
	}
	st := base
	dir := ""
	parts := strings.Split(path, "/")
	for i, name := range parts {
		if data, err := os.ReadFile(wt.w.Abs(filepath.ToSlash(filepath.Join(dir, ".gitignore")))); err == nil {
			st = st.push(parseIgnore(data, dir, hostNameRules(wt.w.config).ignoreCase))
		}
		sub := name
		if dir != "" {
			sub = dir + "/" + name
		}
		isDir := i < len(parts)-1
		if st.ignored(sub, name, isDir) || (isDir && MatchAny(wt.w.opts.Exclude, sub)) {
			return true
		}
		dir = sub
	}
	return false
}

// Watchable returns nil when the work tree can be watched here, else why
// not (ErrNoWatcher, wrapped, on platforms without a trusted watcher).
func (w *Workspace) Watchable() error { return watchable(w.repo.WorkTree) }
