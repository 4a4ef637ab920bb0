package odb

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/gitguard/gitguard/internal/git"
)

// Writing back what git maintenance deleted.
//
// An object written (or found and reused) for a checkpoint is unreachable
// until the run's ref points at the checkpoint. A git gc --prune=now or git
// repack -ad that walked the refs before the ref moved deletes it all the
// same, and the run then names a missing object. Git has the same race and
// lives with it through its grace period; gitguard closes it: after the ref
// moves, the objects the new checkpoint names that the previous one did
// not are checked (Ensure), and any that vanished is written again
// from what this process remembers of it (Restore).
//
// What is remembered (recent), within a byte budget, oldest forgotten
// first: the content of every object written from memory (trees, commits,
// records, files up to smallFile) or named by Remember, and for a blob
// streamed from a file, the file's path: it is read again and kept only if
// it still hashes to the same id. A blob streamed from elsewhere
// (WriteStream) is not remembered.

// recentBudget bounds the memory of what is remembered while an operation
// runs: the content kept, and for each object its entry (keptOverhead) and
// the path of a file it is read again from.
const recentBudget = 64 << 20

// recentIdle is what is remembered between operations (see DB.Memo). An
// object is needed only until the checkpoint naming it is on its ref and
// checked, which the operation that wrote it does; a process that serves
// many (the watch daemon) keeps the last checkpoint's objects or so, not
// everything it ever wrote.
const recentIdle = 512 << 10

// keptOverhead is what remembering one object costs beyond its content or
// path: its map slot, key and entry, and its place in the order.
const keptOverhead = 112

// maxRecentObject is the largest content remembered; bigger objects are
// written from files (and remembered by path) in practice.
const maxRecentObject = smallFile

type keptObject struct {
	t    Type
	data []byte // the content, or nil for a blob read from path
	path string // the file a blob was streamed from
	size int64  // its size
}

// recent remembers how to write again objects this process wrote or reused
// lately.
type recent struct {
	mu    sync.Mutex
	m     map[git.Hash]keptObject
	order []git.Hash // oldest first
	bytes int
}

func (o keptObject) memory() int { return keptOverhead + len(o.data) + len(o.path) }

func (r *recent) add(h git.Hash, o keptObject) {
	if len(o.data) > maxRecentObject {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[git.Hash]keptObject{}
	}
	if _, ok := r.m[h]; ok {
		return
	}
	r.m[h] = o
	r.order = append(r.order, h)
	r.bytes += o.memory()
	r.shrink(recentBudget)
}

// trim forgets the oldest objects until what is remembered takes at most
// budget bytes, and lets go of the map's room when most of it went.
func (r *recent) trim(budget int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	before := len(r.order)
	r.shrink(budget)
	if len(r.order) < before/2 {
		// A map keeps the room of its largest size: start a smaller one.
		m := make(map[git.Hash]keptObject, len(r.order))
		for _, h := range r.order {
			m[h] = r.m[h]
		}
		r.m, r.order = m, append([]git.Hash(nil), r.order...)
	}
}

// shrink forgets the oldest objects past budget; r.mu is held.
func (r *recent) shrink(budget int) {
	for r.bytes > budget && len(r.order) > 0 {
		old := r.order[0]
		r.order = r.order[1:]
		r.bytes -= r.m[old].memory()
		delete(r.m, old)
	}
	if len(r.order) == 0 {
		r.order = nil // let the backing array go
	}
}

func (r *recent) get(h git.Hash) (keptObject, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.m[h]
	return o, ok
}

// Remember keeps an object's content so that Restore can write it again,
// for a writer that names an object it found already stored (HasForWrite)
// without passing its content through Write. data must not be changed
// afterwards.
func (db *DB) Remember(h git.Hash, t Type, data []byte) {
	db.kept.add(h, keptObject{t: t, data: data})
}

// ErrCannotRestore is returned by Restore for an object this process has
// no content of.
var ErrCannotRestore = errors.New("object cannot be written again: its content is not at hand")

// Restore writes object h again, as a loose object, from what this
// process remembers of it. It returns ErrCannotRestore when the process
// has nothing to write it from (never wrote it, forgot it, or its file
// changed since). Call Sync before a ref may point at it again.
func (db *DB) Restore(h git.Hash) error {
	o, ok := db.kept.get(h)
	if !ok {
		return fmt.Errorf("object %s: %w", h, ErrCannotRestore)
	}
	if o.data != nil || o.path == "" {
		return db.writeLoose(h, o.t, o.data)
	}
	f, err := os.Open(o.path)
	if err != nil {
		return fmt.Errorf("object %s: %w (%s: %w)", h, ErrCannotRestore, o.path, err)
	}
	defer f.Close()
	got, err := db.writeStream(f, o.size, h)
	if err != nil {
		return fmt.Errorf("object %s: %w (%s: %w)", h, ErrCannotRestore, o.path, err)
	}
	if got != h {
		return fmt.Errorf("object %s: %w (%s changed since)", h, ErrCannotRestore, o.path)
	}
	return nil
}

// Ensure checks, after a ref moved to a commit, that the given objects
// (not walked: the commit itself) and every object reachable from each
// pair's tree and not from its base (zero for none) exist, and writes back
// from memory (Restore) any that does not. Pairs are walked in order and
// share what they checked, so a pair (worktree, HEAD's tree) walked before
// (root, zero) spares the root's walk that subtree. Objects reachable from
// a base are not looked at: they were reachable from a ref all along. The
// pack list is read again first, so that packs a concurrent git repack
// deleted are not trusted.
//
// It returns how many objects it wrote back (and synced), and a
// *MissingError for each it could not.
//
// A writer checks the same checkpoint before and after its ref moves, and
// again while git maintenance runs: the objects found by the last complete
// walk are remembered (ensureMemo), and a call with the same arguments
// checks them again without reading a tree.
func (db *DB) Ensure(objects []git.Hash, trees ...[2]git.Hash) (restored int, err error) {
	db.packs.rescan()
	key := ensureKey(objects, trees)
	w := ensureWalk{db: db, done: map[git.Hash]bool{}}
	if named, ok := db.ensured.get(key); ok {
		for _, o := range named {
			w.object(o.id, o.path)
		}
	} else {
		w.named = []namedObject{}
		for _, h := range objects {
			w.object(h, "")
		}
		for _, p := range trees {
			w.tree(p[0], p[1], "")
		}
		if len(w.errs) == 0 {
			db.ensured.set(key, w.named)
		}
	}
	if w.restored > 0 {
		if err := db.Sync(); err != nil {
			w.errs = append(w.errs, err)
		}
	}
	return w.restored, errors.Join(w.errs...)
}

// namedObject is an object an Ensure walk checked, and where.
type namedObject struct {
	id   git.Hash
	path string
}

// maxEnsureMemo bounds the objects remembered from a walk; a bigger walk
// (a first checkpoint without a HEAD to compare with) is not remembered.
const maxEnsureMemo = 1 << 16

// ensureMemo is the last complete Ensure walk: its arguments and the
// objects it checked. Trees never change, so the same arguments name the
// same objects.
type ensureMemo struct {
	mu    sync.Mutex
	key   string
	named []namedObject
}

func (m *ensureMemo) get(key string) ([]namedObject, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.named, m.named != nil && m.key == key
}

func (m *ensureMemo) set(key string, named []namedObject) {
	if len(named) > maxEnsureMemo {
		named = nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.key, m.named = key, named
}

// ensureKey spells Ensure's arguments as a map key.
func ensureKey(objects []git.Hash, trees [][2]git.Hash) string {
	b := make([]byte, 0, 20*(len(objects)+2*len(trees))+1)
	for _, h := range objects {
		b = append(b, h[:]...)
	}
	b = append(b, '/')
	for _, p := range trees {
		b = append(b, p[0][:]...)
		b = append(b, p[1][:]...)
	}
	return string(b)
}

// MissingError names an object found missing and not written back.
type MissingError struct {
	ID   git.Hash
	Path string // where it was named, slash-separated from the walked tree
	Err  error
}

func (e *MissingError) Error() string {
	where := ""
	if e.Path != "" {
		where = " (" + e.Path + ")"
	}
	return fmt.Sprintf("object %s%s is missing: %v", e.ID, where, e.Err)
}

func (e *MissingError) Unwrap() []error { return []error{ErrMissing, e.Err} }

type ensureWalk struct {
	db       *DB
	done     map[git.Hash]bool
	named    []namedObject // every object checked, when not nil
	restored int
	errs     []error
}

// object makes sure h exists, writing it back when it does not.
func (w *ensureWalk) object(h git.Hash, path string) bool {
	if w.named != nil {
		w.named = append(w.named, namedObject{id: h, path: path})
	}
	if w.db.Has(h) {
		return true
	}
	if err := w.db.Restore(h); err != nil {
		w.errs = append(w.errs, &MissingError{ID: h, Path: path, Err: err})
		return false
	}
	w.restored++
	return true
}

func (w *ensureWalk) tree(h, base git.Hash, path string) {
	if !base.IsZero() {
		// A ref keeps the base and all it names: a later pair that meets
		// it (a checkpoint's root naming an index tree equal to HEAD's)
		// does not walk it either.
		w.done[base] = true
	}
	if h.IsZero() || h == base || w.done[h] {
		return
	}
	w.done[h] = true
	if !w.object(h, path) {
		return
	}
	entries, err := w.db.readTreeKept(h)
	if err != nil {
		w.errs = append(w.errs, &MissingError{ID: h, Path: path, Err: err})
		return
	}
	var old map[string]TreeEntry
	if !base.IsZero() {
		if be, err := w.db.readTreeKept(base); err == nil {
			old = make(map[string]TreeEntry, len(be))
			for _, e := range be {
				old[e.Name] = e
			}
		}
	}
	for _, e := range entries {
		b, inBase := old[e.Name]
		if inBase && b.Hash == e.Hash {
			continue
		}
		sub := e.Name
		if path != "" {
			sub = path + "/" + e.Name
		}
		switch e.Mode {
		case ModeTree:
			var bt git.Hash
			if inBase && b.Mode == ModeTree {
				bt = b.Hash
			}
			w.tree(e.Hash, bt, sub)
		case ModeGitlink:
			// a submodule's commit lives in its own repository
		default:
			if !w.done[e.Hash] {
				w.done[e.Hash] = true
				w.object(e.Hash, sub)
			}
		}
	}
}

// readTreeKept reads a tree from what this process remembers of it (see
// recent) when it can, else from the object database. A checkpoint's
// checks and diffs mostly read the trees its snapshot has just written;
// an id names one content, so memory and disk agree.
//
// The entries are shared (see treeCache): the caller must not change them.
func (db *DB) readTreeKept(h git.Hash) ([]TreeEntry, error) {
	if entries, ok := db.trees.get(h); ok {
		return entries, nil
	}
	var data []byte
	if o, ok := db.kept.get(h); ok && o.t == TypeTree && o.data != nil {
		data = o.data
	} else {
		var err error
		if data, err = db.ReadAs(h, TypeTree); err != nil {
			return nil, err
		}
	}
	entries, err := DecodeTree(data)
	if err != nil {
		return nil, err
	}
	db.trees.add(h, entries)
	return entries, nil
}

// writeStream is WriteStream that, when want is not zero, installs the
// object only if it hashes to want.
func (db *DB) writeStream(r io.Reader, size int64, want git.Hash) (git.Hash, error) {
	for try := 1; ; try++ {
		h, err := db.writeStreamOnce(r, size, want)
		if !errors.Is(err, errTempGone) || try == maxTempTries {
			return h, err
		}
		// Read it again when the source can be; a stream read once is lost.
		s, ok := r.(io.Seeker)
		if !ok {
			return h, err
		}
		if _, serr := s.Seek(0, io.SeekStart); serr != nil {
			return h, err
		}
	}
}

func (db *DB) writeStreamOnce(r io.Reader, size int64, want git.Hash) (git.Hash, error) {
	tmp, err := os.CreateTemp(db.objDir, "tmp_obj_")
	if err != nil {
		return git.ZeroHash, fmt.Errorf("write object: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	h, err := compressBlob(tmp, r, size)
	if err != nil || (!want.IsZero() && h != want) {
		return h, err
	}
	if want.IsZero() && db.HasForWrite(h) {
		return h, nil
	}
	return h, db.install(tmp, h)
}
