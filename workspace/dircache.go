package workspace

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gitguard/gitguard/internal/atomicfile"
)

// A folder's listing changes only with its own modification and change
// times: creating, deleting or renaming a name in it moves both, while
// writing a file in it moves neither. Where the file system keeps that
// promise (dirTimesKept), a walk takes the names of a folder whose stat
// data is as when it was last listed from the folder cache instead of
// listing it again: one fstat instead of two getdents. Every name is kept,
// tracked, untracked and ignored alike, so a change of the index or of the
// ignore rules needs no new listing: the walk decides about each name as
// it would after a listing. It is git's untracked cache
// (core.untrackedCache), kept one step earlier.

// dirID is the stat data a folder's cached listing is valid for.
type dirID struct {
	Ino     uint64
	Size    int64
	MtimeNs int64
	CtimeNs int64
}

func dirIDOf(st *fileStat) dirID {
	return dirID{Ino: st.ino, Size: st.size, MtimeNs: st.mtimeSec*1e9 + st.mtimeNsec, CtimeNs: st.ctimeSec*1e9 + st.ctimeNsec}
}

// dirListing is one folder's names, as listed when its stat data was id.
type dirListing struct {
	id   dirID
	ents []dirent
}

// dirCache is the folder cache: the listings of a work tree's folders, by
// slash-separated path ("" for the top).
type dirCache map[string]dirListing

const dirCacheMagic = "gitguard-dircache 1\n"

// maxDirCacheFile bounds the folder cache read back: past it the cache is
// left unread (it is only an accelerator).
const maxDirCacheFile = 256 << 20

func dirCachePath(stateDir string) string { return filepath.Join(stateDir, "dircache") }

var errDirCache = errors.New("damaged folder cache")

// loadDirCache reads the folder cache; a missing, damaged or oversized one
// is empty, and so is anything but a regular file in its place (a fifo
// would block the walk, a symlink lead elsewhere). The names share one
// string, the file's content.
func loadDirCache(stateDir string) dirCache {
	data, err := atomicfile.ReadFile(dirCachePath(stateDir), maxDirCacheFile)
	if err != nil {
		return dirCache{}
	}
	c, err := parseDirCache(string(data))
	if err != nil {
		return dirCache{}
	}
	return c
}

// parseDirCache decodes the folder cache's content data (see save).
func parseDirCache(data string) (dirCache, error) {
	rest, ok := strings.CutPrefix(data, dirCacheMagic)
	if !ok {
		return nil, errDirCache
	}
	uvarint := func() (uint64, error) {
		v, n := binary.Uvarint([]byte(rest[:min(len(rest), binary.MaxVarintLen64)]))
		if n <= 0 {
			return 0, errDirCache
		}
		rest = rest[n:]
		return v, nil
	}
	str := func() (string, error) {
		n, err := uvarint()
		if err != nil || n > uint64(len(rest)) {
			return "", errDirCache
		}
		s := rest[:n]
		rest = rest[n:]
		return s, nil
	}
	c := dirCache{}
	for rest != "" {
		dir, err := str()
		if err != nil || !validCachedDir(dir) {
			return nil, errDirCache
		}
		if len(rest) < 32 {
			return nil, errDirCache
		}
		var id dirID
		id.Ino = binary.LittleEndian.Uint64([]byte(rest[0:8]))
		id.Size = int64(binary.LittleEndian.Uint64([]byte(rest[8:16])))
		id.MtimeNs = int64(binary.LittleEndian.Uint64([]byte(rest[16:24])))
		id.CtimeNs = int64(binary.LittleEndian.Uint64([]byte(rest[24:32])))
		rest = rest[32:]
		n, err := uvarint()
		if err != nil || n > uint64(len(rest)) { // each name takes two bytes at least
			return nil, errDirCache
		}
		ents := make([]dirent, n)
		for i := range ents {
			name, err := str()
			if err != nil || !validCachedName(name) || rest == "" || fileKind(rest[0]) > kindOther {
				return nil, errDirCache
			}
			ents[i] = dirent{name: name, kind: fileKind(rest[0])}
			rest = rest[1:]
		}
		if _, dup := c[dir]; dup {
			return nil, errDirCache
		}
		c[dir] = dirListing{id: id, ents: ents}
	}
	return c, nil
}

// validCachedDir accepts a folder path as a walk spells it: "" or names
// joined by slashes.
func validCachedDir(dir string) bool {
	if dir == "" {
		return true
	}
	for _, name := range strings.Split(dir, "/") {
		if !validCachedName(name) {
			return false
		}
	}
	return true
}

// validCachedName accepts a name a listing can hold.
func validCachedName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

// save writes the cache atomically, keeping only the folders whose times
// are older than start-racyMargin: a change within the same timestamp
// tick as the listing would otherwise go unseen.
func (c dirCache) save(stateDir string, start time.Time) error {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return fmt.Errorf("save folder cache: %w", err)
	}
	tmp, err := os.CreateTemp(stateDir, "dircache.tmp")
	if err != nil {
		return fmt.Errorf("save folder cache: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 64<<10)
	w.WriteString(dirCacheMagic)
	var buf [binary.MaxVarintLen64]byte
	putString := func(s string) {
		w.Write(buf[:binary.PutUvarint(buf[:], uint64(len(s)))])
		w.WriteString(s)
	}
	for dir, l := range c {
		if l.id.racy(start) {
			continue
		}
		putString(dir)
		var id [32]byte
		binary.LittleEndian.PutUint64(id[0:], l.id.Ino)
		binary.LittleEndian.PutUint64(id[8:], uint64(l.id.Size))
		binary.LittleEndian.PutUint64(id[16:], uint64(l.id.MtimeNs))
		binary.LittleEndian.PutUint64(id[24:], uint64(l.id.CtimeNs))
		w.Write(id[:])
		w.Write(buf[:binary.PutUvarint(buf[:], uint64(len(l.ents)))])
		for _, e := range l.ents {
			putString(e.name)
			w.WriteByte(byte(e.kind))
		}
	}
	if err := errors.Join(w.Flush(), tmp.Close()); err != nil {
		return fmt.Errorf("save folder cache: %w", err)
	}
	if err := atomicfile.Rename(tmp.Name(), dirCachePath(stateDir)); err != nil {
		return fmt.Errorf("save folder cache: %w", err)
	}
	return nil
}

// racy reports whether the folder changed within racyMargin of start: a
// listing of it is not kept.
func (id dirID) racy(start time.Time) bool {
	limit := start.Add(-racyMargin).UnixNano()
	return id.MtimeNs >= limit || id.CtimeNs >= limit
}

// folderCache is a walk's use of the folder cache.
type folderCache struct {
	on    bool     // the work tree's file system keeps folder times (dirTimesKept)
	dev   uint64   // the work tree's device: a folder on another is listed
	old   dirCache // as loaded; read only
	fresh dirCache // the listings valid now, saved for the next snapshot; guarded by scan.mu
	// changed: fresh differs from old, and is to be saved.
	changed bool
}

// listFolder returns the names in the folder fd, the walk's dir: the
// cached listing when the folder's stat data is the one it was listed
// with, else a new listing, remembered for the next walk.
func (s *scan) listFolder(fd *folder, dir string) ([]dirent, error) {
	fc := &s.folders
	if !fc.on {
		return fd.list(make([]dirent, 0, 64))
	}
	var st fileStat
	if err := fd.lstat(".", &st); err != nil || st.dev != fc.dev || st.kind != kindDir {
		return fd.list(make([]dirent, 0, 64))
	}
	id := dirIDOf(&st)
	if l, ok := fc.old[dir]; ok && l.id == id {
		s.mu.Lock()
		fc.fresh[dir] = l
		s.stats.DirsCached++
		s.mu.Unlock()
		return l.ents, nil
	}
	// The stat data is read before the listing: a change made while
	// listing moves the folder's times past id.
	list, err := fd.list(make([]dirent, 0, 64))
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	fc.fresh[dir] = dirListing{id: id, ents: list}
	fc.changed = true
	s.mu.Unlock()
	return list, nil
}

// saveFolders saves the folder cache when this walk changed it.
func (s *scan) saveFolders(start time.Time) error {
	fc := &s.folders
	if !fc.on || (!fc.changed && len(fc.fresh) == len(fc.old)) {
		return nil
	}
	return fc.fresh.save(s.w.StateDir(), start)
}
