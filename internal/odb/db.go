package odb

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/klauspost/compress/zlib"

	"github.com/gitguard/gitguard/internal/fault"
	"github.com/gitguard/gitguard/internal/git"
)

// zlibWriters reuses compressors: setting one up (its window and hash
// tables) showed in profiles of snapshots that write many small objects.
var zlibWriters = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed) // the level is valid
	return w
}}

// zlibStorers write zlib streams that store rather than deflate (see
// storeTreeMax).
var zlibStorers = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(nil, zlib.NoCompression) // the level is valid
	return w
}}

// storeTreeMax is the size up to which a tree goes into a pack stored
// rather than deflated. A small tree is mostly object ids, which do not
// compress: deflating one of 111 bytes made 126, storing it makes 122, and
// costs no Huffman tables (the most of a hook event's pack, whose trees
// are mostly this small). Past a few entries the names pay for deflating.
const storeTreeMax = 256

// ErrMissing is returned when an object is not in the database.
var ErrMissing = errors.New("object not found")

// ErrWrongType is returned when an object exists with another type than expected.
var ErrWrongType = errors.New("object has the wrong type")

// DB is a repository's object database. Reads and writes are safe for
// concurrent use.
type DB struct {
	objDir string
	alts   []string // the object folders it borrows from (alternates.go)

	mu sync.Mutex // guards st: go-git's pack index loading is not concurrency-safe
	st *filesystem.Storage

	packs packIndexes // existence checks in packs without go-git
	fresh freshened   // files freshened lately (freshen.go)
	kept  recent      // how to write again what was written lately (restore.go)
	trees treeCache   // trees decoded lately (treecache.go)
	memo  readMemo    // objects read during an operation (memo.go)
	// ensured is the last complete Ensure walk (restore.go).
	ensured ensureMemo

	dirty atomic.Bool // objects written since the last Sync

	smu     sync.Mutex // held by Sync while it makes objects durable
	pmu     sync.Mutex
	pending []string // object files written since the last Sync

	bmu        sync.Mutex
	batches    int                      // batches open (StartBatch)
	batch      map[git.Hash]batchObject // objects collected, not yet stored
	batchBytes int                      // their total size
	packAlways int                      // open batches that store even a few objects as a pack
	keeps      []string                 // .keep files of the packs the open batches wrote

	keepBase keepBase // what the .keep files are links to (keep.go)
}

// syncEach is the number of new objects up to which Sync fsyncs each one
// (and its folder) instead of the whole file system: syncfs also waits for
// every other process's dirty data, which measured 200 ms for a first
// snapshot of 30 objects on a busy machine against under 1 ms when idle.
const syncEach = 256

// Open opens the object database of the repository whose common git dir is commonDir.
func Open(commonDir string) (*DB, error) {
	objDir := filepath.Join(commonDir, "objects")
	if fi, err := os.Stat(objDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("open object database %s: not a folder", objDir)
	}
	alts := alternates(objDir, os.Getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES"))
	altPacks := make([]string, len(alts))
	for i, a := range alts {
		altPacks[i] = filepath.Join(a, "pack")
	}
	db := &DB{objDir: objDir, alts: alts, packs: packIndexes{dir: filepath.Join(objDir, "pack"), alts: altPacks}}
	db.st = db.newStorage()
	return db, nil
}

// newStorage opens go-git's view of the repository. Alternates it is
// given the whole file system for: it reads their absolute names relative
// to the repository's folder otherwise, and cannot leave it.
func (db *DB) newStorage() *filesystem.Storage {
	return filesystem.NewStorageWithOptions(osfs.New(filepath.Dir(db.objDir)), cache.NewObjectLRU(16*cache.MiByte),
		filesystem.Options{AlternatesFS: osfs.New("/")})
}

// Close releases open pack files.
func (db *DB) Close() error {
	db.packs.close()
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.st.Close()
}

func (db *DB) loosePath(h git.Hash) string { return loosePathIn(db.objDir, h) }

func loosePathIn(objDir string, h git.Hash) string {
	s := h.String()
	return filepath.Join(objDir, s[:2], s[2:])
}

// Has reports whether the object exists, packed, loose or in an alternate.
// It only looks: a writer that names an object instead of writing it uses
// Reuse or HasForWrite, which freshen it.
func (db *DB) Has(h git.Hash) bool { return db.has(h, false) }

// Reuse is Has for a writer that will name the object instead of writing
// it (a blob found through a stat cache, say): an object found is
// freshened as git does (see freshen.go), so that git prune does not take
// it for an old unreachable one.
func (db *DB) Reuse(h git.Hash) bool { return db.has(h, true) }

func (db *DB) has(h git.Hash, freshen bool) bool {
	if db.find(h, freshen) {
		return true
	}
	// git gc or repack may have moved it into a pack written since the pack
	// list was read: look again, as git's reprepare_packed_git does.
	if _, known := db.packs.has(h); known {
		db.packs.rescan()
		return db.find(h, freshen)
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	db.rescanLocked()
	return db.st.HasEncodedObject(plumbing.Hash(h)) == nil
}

// HasForWrite is Has for a writer deciding whether to write an object: it
// does not read the pack folder again after a miss, since a wrong "no" only
// costs writing the object again. Packs come first, as in git: most
// objects of a work tree are packed, and a mapped index costs no system
// call. An object found is freshened, as by Reuse: the writer will name it.
func (db *DB) HasForWrite(h git.Hash) bool {
	if db.find(h, true) {
		return true
	}
	if _, known := db.packs.has(h); known {
		return false
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.st.HasEncodedObject(plumbing.Hash(h)) == nil
}

// find looks for h in the open batch, the mapped packs and the loose
// objects, the repository's own and its alternates', without asking
// go-git; with freshen, an object found on disk is freshened, and one that
// cannot be (its file just vanished) counts as missing, as in git's
// check_and_freshen.
func (db *DB) find(h git.Hash, freshen bool) bool {
	if _, ok := db.batched(h); ok {
		return true
	}
	if pack, _ := db.packs.find(h); pack != "" && (!freshen || db.freshen(pack, false)) {
		return true
	}
	for _, dir := range db.looseDirs() {
		if db.looseAt(loosePathIn(dir, h), freshen) {
			return true
		}
	}
	return false
}

// looseAt reports whether the loose object file path exists; with freshen,
// whether it exists and could be freshened.
func (db *DB) looseAt(path string, freshen bool) bool {
	if freshen {
		return db.freshen(path, true)
	}
	_, err := os.Lstat(path)
	return err == nil
}

// looseDirs are the folders holding loose objects: the repository's own,
// then those it borrows from.
func (db *DB) looseDirs() []string {
	if len(db.alts) == 0 {
		return []string{db.objDir}
	}
	return append([]string{db.objDir}, db.alts...)
}

// Rescan forgets the cached pack list and open packs, so that objects a
// git fetch just stored in a new pack are seen at once.
func (db *DB) Rescan() {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.rescanLocked()
}

// rescanLocked drops the cached pack list and open packs so that the next
// lookup sees packs that a concurrent git gc or repack wrote (and forgets
// the ones it deleted). db.mu must be held.
func (db *DB) rescanLocked() {
	db.packs.rescan()
	_ = db.st.Close()
	db.st = db.newStorage()
}

// Write stores an object held in memory and returns its id.
func (db *DB) Write(t Type, data []byte) (git.Hash, error) {
	own := data
	if len(data) <= maxRecentObject {
		own = bytes.Clone(data)
	}
	return db.writeOwned(t, own)
}

// writeOwned is Write for content nobody else changes afterwards: it is
// remembered for Restore (restore.go) and kept by the batch as it is.
func (db *DB) writeOwned(t Type, data []byte) (git.Hash, error) {
	h := HashObject(t, data)
	own := data
	if len(data) <= maxRecentObject {
		if own == nil {
			own = []byte{}
		}
		db.kept.add(h, keptObject{t: t, data: own})
	}
	if db.HasForWrite(h) { // a miss just writes it again: no rescan needed
		return h, nil
	}
	if len(data) <= smallFile && db.collect(h, t, own) {
		return h, nil
	}
	return h, db.writeLoose(h, t, data)
}

// WriteStream stores a blob of exactly size bytes read from r, hashing and
// compressing in one pass, and returns its id.
func (db *DB) WriteStream(r io.Reader, size int64) (git.Hash, error) {
	return db.writeStream(r, size, git.ZeroHash)
}

// compressBlob writes to w the compressed blob object of exactly size
// bytes read from r and returns its id.
func compressBlob(w io.Writer, r io.Reader, size int64) (git.Hash, error) {
	zw := zlibWriters.Get().(*zlib.Writer)
	zw.Reset(w)
	defer zlibWriters.Put(zw) // Reset before every use, so safe to reuse after an error
	hs := NewHasher(TypeBlob, size)
	if _, err := zw.Write(header(TypeBlob, size)); err != nil {
		return git.ZeroHash, fmt.Errorf("write object: %w", err)
	}
	n, err := io.Copy(io.MultiWriter(zw, hs), r)
	if err != nil {
		return git.ZeroHash, fmt.Errorf("write object: %w", err)
	}
	if n != size {
		return git.ZeroHash, fmt.Errorf("write object: %w (read %d bytes, expected %d)", ErrChanged, n, size)
	}
	if err := zw.Close(); err != nil {
		return git.ZeroHash, fmt.Errorf("write object: %w", err)
	}
	return hs.Sum(), nil
}

// ErrChanged is returned by WriteFile when the file changed size while it was read.
var ErrChanged = errors.New("file changed while being read")

// smallFile is the size up to which WriteFile reads a file into memory and
// hashes it before writing anything, so that a blob already stored (a file
// touched but not changed) costs no temporary object file.
const smallFile = 1 << 20

// WriteFile stores the content of the regular file at path as a blob.
func (db *DB) WriteFile(path string, size int64) (git.Hash, error) {
	f, err := os.Open(path)
	if err != nil {
		return git.ZeroHash, err
	}
	defer f.Close()
	if size <= smallFile {
		return db.writeSmallFile(f, size)
	}
	h, err := db.WriteStream(f, size)
	if err == nil {
		if abs, aerr := filepath.Abs(path); aerr == nil {
			db.kept.add(h, keptObject{t: TypeBlob, path: abs, size: size})
		}
	}
	return h, err
}

// WriteFileConverted stores as a blob what convert makes of the content of
// the regular file at path, when the file is at most smallFile bytes and
// convert accepts it; ok is false (and nothing stored) otherwise.
func (db *DB) WriteFileConverted(path string, size int64, convert func(data []byte) ([]byte, bool)) (h git.Hash, ok bool, err error) {
	data, ok, err := readConverted(path, size, convert)
	if !ok || err != nil {
		return git.ZeroHash, false, err
	}
	h, err = db.writeOwned(TypeBlob, data)
	return h, err == nil, err
}

// HashFileConverted is WriteFileConverted that only hashes: the id of the
// blob it would store.
func HashFileConverted(path string, size int64, convert func(data []byte) ([]byte, bool)) (h git.Hash, ok bool, err error) {
	data, ok, err := readConverted(path, size, convert)
	if !ok || err != nil {
		return git.ZeroHash, false, err
	}
	return HashObject(TypeBlob, data), true, nil
}

// readConverted returns what convert makes of the content of the regular
// file at path, for WriteFileConverted and HashFileConverted.
func readConverted(path string, size int64, convert func(data []byte) ([]byte, bool)) ([]byte, bool, error) {
	if size > smallFile {
		return nil, false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err := readSmallFile(f, size)
	if err != nil {
		return nil, false, err
	}
	data, ok := convert(data)
	return data, ok, nil
}

// writeSmallFile reads size bytes from f into memory and stores them as a
// blob.
func (db *DB) writeSmallFile(f *os.File, size int64) (git.Hash, error) {
	data, err := readSmallFile(f, size)
	if err != nil {
		return git.ZeroHash, err
	}
	return db.writeOwned(TypeBlob, data)
}

// readSmallFile reads the size bytes of f, failing with ErrChanged when it
// holds more or fewer.
func readSmallFile(f *os.File, size int64) ([]byte, error) {
	data := make([]byte, size+1) // one byte more to see a file that grew
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if int64(n) != size {
		return nil, fmt.Errorf("read %s: %w (read %d bytes, expected %d)", f.Name(), ErrChanged, n, size)
	}
	return data[:n], nil
}

// errTempGone is returned by installAt when the temporary file vanished
// before it was renamed into place: git prune deletes files named tmp_*
// in the object folders, by their time, and with --prune=now it takes
// those being written too. The write is done again.
var errTempGone = errors.New("temporary object file deleted (by git prune?) before it was renamed")

// maxTempTries bounds the writes of one object that git prune spoils.
const maxTempTries = 5

// writeLoose stores an object held in memory as a loose object file.
func (db *DB) writeLoose(h git.Hash, t Type, data []byte) error {
	var err error
	for try := 0; try < maxTempTries; try++ {
		if err = db.writeLooseOnce(h, t, data); !errors.Is(err, errTempGone) {
			break
		}
	}
	return err
}

func (db *DB) writeLooseOnce(h git.Hash, t Type, data []byte) error {
	tmp, err := os.CreateTemp(db.objDir, "tmp_obj_")
	if err != nil {
		return fmt.Errorf("write object %s: %w", h, err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	zw := zlibWriters.Get().(*zlib.Writer)
	zw.Reset(tmp)
	defer zlibWriters.Put(zw) // Reset before every use, so safe to reuse after an error
	zw.Write(header(t, int64(len(data))))
	zw.Write(data)
	if err := zw.Close(); err != nil { // reports a failed write too
		return fmt.Errorf("write object %s: %w", h, err)
	}
	return db.install(tmp, h)
}

// install moves a finished temporary object file into place.
func (db *DB) install(tmp *os.File, h git.Hash) error {
	if err := db.installAt(tmp, db.loosePath(h)); err != nil {
		return fmt.Errorf("write object %s: %w", h, err)
	}
	return nil
}

// installAt closes a finished temporary file in the object database, makes
// it read-only and renames it to dst; the next Sync makes it durable.
func (db *DB) installAt(tmp *os.File, dst string) error {
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o444); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return errTempGone
		}
		return err
	}
	// git prune (run by git gc, also in the background after a commit)
	// removes empty fan-out folders: one made here may vanish before the
	// rename, so make it again and retry, as git's own object writer does.
	var err error
	for try := 0; try < 10; try++ {
		if err = os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			break
		}
		if err = os.Rename(tmp.Name(), dst); err == nil || !errors.Is(err, os.ErrNotExist) {
			break
		}
		if _, serr := os.Lstat(tmp.Name()); errors.Is(serr, os.ErrNotExist) {
			return errTempGone
		}
	}
	if err != nil {
		// Names are content hashes: an object already there (another
		// process wrote it; on Windows a read-only or open file cannot be
		// replaced) is this one, as git's finalize_object_file reasons.
		// It is synced with the rest, as it may not be yet.
		if _, serr := os.Lstat(dst); serr != nil {
			return err
		}
		_ = os.Remove(tmp.Name())
	}
	db.pmu.Lock()
	db.pending = append(db.pending, dst)
	db.pmu.Unlock()
	db.dirty.Store(true)
	fault.Point("object.write")
	return nil
}

// Flush stores the objects the open batch collected, as Sync does first,
// without making anything durable: a writer can store every object before
// it takes a ref's lock, and Sync while it holds it, the lock's own flush
// beside (see gitrefs' UpdateAlongside).
func (db *DB) Flush() error {
	db.bmu.Lock()
	defer db.bmu.Unlock()
	if err := db.flushLocked(); err != nil {
		return fmt.Errorf("store objects: %w", err)
	}
	return nil
}

// flushBehindMin is the number of collected objects from which
// FlushBehind stores them: a pack of its own costs a few file operations,
// worth it only beside work that takes longer (a run's first checkpoint:
// the work tree's new blobs and trees, some 250 objects for 100 new files).
const flushBehindMin = 4 * packMin

// FlushBehind starts storing the objects the open batch has collected, as
// Flush does, when they are many, while the caller goes on; wait returns
// the outcome and must be called. Objects collected meanwhile go to the
// next Flush or Sync. Reads go on too: an object being stored is read from
// what the process remembers of it (restore.go) or waits for the store.
func (db *DB) FlushBehind() (wait func() error) {
	db.bmu.Lock()
	n := len(db.batch)
	db.bmu.Unlock()
	if n < flushBehindMin {
		return func() error { return nil }
	}
	done := make(chan error, 1)
	go func() { done <- db.Flush() }()
	return func() error { return <-done }
}

// Sync makes every object written so far durable: an fsync of each new
// object file and of the folders they were renamed into when there are few,
// else, on Linux, one syncfs(2) of the file system holding the objects
// rather than an fsync per object (git's core.fsyncMethod=batch idea);
// elsewhere an fsync of each. Callers sync before a ref points at them.
func (db *DB) Sync() error {
	db.bmu.Lock()
	err := db.flushLocked()
	db.bmu.Unlock()
	if err != nil {
		return fmt.Errorf("sync objects: %w", err)
	}
	// A Sync that finds nothing pending because another one took it
	// must not return before that one made it durable.
	db.smu.Lock()
	defer db.smu.Unlock()
	if !db.dirty.Swap(false) {
		return nil
	}
	db.pmu.Lock()
	files := db.pending
	db.pending = nil
	db.pmu.Unlock()
	fault.Point("objects.sync")
	fail := func(err error) error {
		db.pmu.Lock()
		db.pending = append(db.pending, files...)
		db.pmu.Unlock()
		db.dirty.Store(true)
		return fmt.Errorf("sync objects: %w", err)
	}
	if len(files) > 0 && len(files) <= syncEach {
		// The files and the folder entries that name them, all at once:
		// the file system commits them together instead of one journal
		// commit each. Their order would not matter: each file was renamed
		// into place before, so a crash could already leave either one
		// durable without the other, and no ref names them until Sync
		// returns.
		if err := fsyncAll(syncNames(db.objDir, files)); err != nil {
			return fail(err)
		}
		return nil
	}
	if err := syncFS(db.objDir, files); err != nil {
		return fail(err)
	}
	return nil
}

// syncNames returns the names to flush for the new object files (and
// folders) files of the object folder objDir: each, and each one's
// folder; and since a loose object's fan-out folder may be new (git prune
// removes empty ones), the folder naming it too. The pack folder is there
// already but when writePackWith made it, which lists it with the files.
func syncNames(objDir string, files []string) []string {
	names := slices.Clone(files)
	seen := map[string]bool{}
	for _, f := range files {
		seen[f] = true
	}
	add := func(dir string) {
		if !seen[dir] {
			seen[dir] = true
			names = append(names, dir)
		}
	}
	packDir := filepath.Join(objDir, "pack")
	for _, f := range files {
		dir := filepath.Dir(f)
		add(dir)
		if dir != packDir && dir != objDir {
			add(filepath.Dir(dir))
		}
	}
	return names
}

// fsyncAll fsyncs names concurrently and returns the errors; a name that
// no longer exists is not one.
func fsyncAll(names []string) error {
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	sem := make(chan struct{}, 16)
	for i, n := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			// An object file git deleted meanwhile (packed by a repack,
			// or pruned: see restore.go) has nothing left to sync.
			if err := fsyncPath(n); !errors.Is(err, os.ErrNotExist) {
				errs[i] = err
			}
			<-sem
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Read returns the type and content of an object.
func (db *DB) Read(h git.Hash) (Type, []byte, error) {
	if o, ok := db.memo.get(h); ok {
		return o.t, bytes.Clone(o.data), nil
	}
	if t, data, err := db.packs.read(h); err == nil {
		db.memo.add(h, t, data)
		return t, data, nil // read into a buffer of its own already
	}
	t, r, size, err := db.Open(h)
	if err != nil {
		return "", nil, err
	}
	defer r.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		return "", nil, fmt.Errorf("read object %s: %w", h, err)
	}
	db.memo.add(h, t, data)
	return t, data, nil
}

// Open returns a reader of an object's content, its type and size.
func (db *DB) Open(h git.Hash) (Type, io.ReadCloser, int64, error) {
	if o, ok := db.batched(h); ok {
		return o.t, io.NopCloser(bytes.NewReader(o.data)), int64(len(o.data)), nil
	}
	if o, ok := db.memo.get(h); ok {
		return o.t, io.NopCloser(bytes.NewReader(o.data)), int64(len(o.data)), nil
	}
	// Read without go-git where possible: it decodes every pack index of
	// the repository on its first lookup (20 ms for 100k objects, paid by
	// every short command). Packs first, as in git: a lookup in a mapped
	// index costs no system call, a loose miss a failed open.
	if t, data, err := db.packs.read(h); err == nil {
		db.memo.add(h, t, data)
		return t, io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
	}
	if t, r, size, err := db.openLoose(h); err == nil {
		return t, r, size, nil
	}
	// A pack listed (or mapped) earlier may have been merged into a new one
	// since (git repack, gitguard's own merges): list the packs again.
	db.packs.rescan()
	if t, data, err := db.packs.read(h); err == nil {
		return t, io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
	}
	db.mu.Lock()
	obj, err := db.st.EncodedObject(plumbing.AnyObject, plumbing.Hash(h))
	if err != nil {
		// A concurrent git gc may have packed the loose object or replaced
		// the pack that held it: rescan the packs once and retry.
		db.rescanLocked()
		obj, err = db.st.EncodedObject(plumbing.AnyObject, plumbing.Hash(h))
	}
	db.mu.Unlock()
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return "", nil, 0, fmt.Errorf("object %s: %w", h, ErrMissing)
	}
	if err != nil {
		return "", nil, 0, fmt.Errorf("read object %s: %w", h, err)
	}
	r, err := obj.Reader()
	if err != nil {
		return "", nil, 0, fmt.Errorf("read object %s: %w", h, err)
	}
	return Type(obj.Type().String()), r, obj.Size(), nil
}

// openLoose reads a loose object's header and returns a reader of the
// rest. Any error (not loose, damaged) sends the caller to go-git, which
// reports it properly.
func (db *DB) openLoose(h git.Hash) (Type, io.ReadCloser, int64, error) {
	var f *os.File
	var err error
	for _, dir := range db.looseDirs() {
		if f, err = os.Open(loosePathIn(dir, h)); !errors.Is(err, os.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return "", nil, 0, err
	}
	z, err := newInflater(f)
	if err != nil {
		f.Close()
		return "", nil, 0, err
	}
	hdr, err := z.out.ReadString(0)
	if err != nil {
		z.release()
		f.Close()
		return "", nil, 0, err
	}
	name, sizeText, ok := strings.Cut(strings.TrimSuffix(hdr, "\x00"), " ")
	size, serr := strconv.ParseInt(sizeText, 10, 64)
	t := Type(name)
	if !ok || serr != nil || size < 0 || (t != TypeBlob && t != TypeTree && t != TypeCommit && t != "tag") {
		z.release()
		f.Close()
		return "", nil, 0, fmt.Errorf("loose object %s: bad header %q", h, hdr)
	}
	return t, &inflateReader{Reader: io.LimitReader(z.out, size), z: z, f: f}, size, nil
}

// ReadAs returns the content of an object that must have type t.
func (db *DB) ReadAs(h git.Hash, t Type) ([]byte, error) {
	got, data, err := db.Read(h)
	if err != nil {
		return nil, err
	}
	if got != t {
		return nil, fmt.Errorf("object %s is a %s, not a %s: %w", h, got, t, ErrWrongType)
	}
	return data, nil
}

// ReadTree reads and parses a tree object.
func (db *DB) ReadTree(h git.Hash) ([]TreeEntry, error) {
	data, err := db.ReadAs(h, TypeTree)
	if err != nil {
		return nil, err
	}
	return DecodeTree(data)
}

// ReadCommit reads and parses a commit object.
func (db *DB) ReadCommit(h git.Hash) (*Commit, error) {
	data, err := db.ReadAs(h, TypeCommit)
	if err != nil {
		return nil, err
	}
	return DecodeCommit(data)
}

// WriteTree encodes and stores a tree.
func (db *DB) WriteTree(entries []TreeEntry) (git.Hash, error) {
	return db.writeOwned(TypeTree, EncodeTree(entries))
}

// EmptyTree is the id of the tree with no entries.
var EmptyTree = HashObject(TypeTree, nil)

// IsEmptyTree reports whether h names the empty tree.
func IsEmptyTree(h git.Hash) bool { return h == EmptyTree }
