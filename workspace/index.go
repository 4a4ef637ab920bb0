package workspace

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gitguard/gitguard/record"
)

// ErrIndexFormat is returned for an index file gitguard cannot read.
var ErrIndexFormat = errors.New("unsupported or corrupt index file")

// errSplitIndex makes ReadIndex's caller fall back to `git ls-files`.
var errSplitIndex = errors.New("split index")

// IndexEntry is one entry of the git index, with the stat data git caches.
type IndexEntry struct {
	Path         string
	Mode         record.Mode
	Hash         record.Hash
	Stage        int
	SkipWorktree bool
	IntentToAdd  bool
	AssumeValid  bool // assume-unchanged (CE_VALID): gitguard looks at the file all the same
	HasStat      bool // false when the entry came from a fallback without stat data

	CtimeSec, CtimeNsec uint32
	MtimeSec, MtimeNsec uint32
	Dev, Ino            uint32
	UID, GID            uint32
	Size                uint32
}

// Index is a parsed index file.
type Index struct {
	Entries []IndexEntry // sorted by path, then stage
	// Mtime is the index file's modification time in nanoseconds; entries whose
	// mtime is not older are racily clean and must be re-hashed, as in git.
	Mtime int64

	sharedIndex record.Hash // split index: the shared index file's id (link extension)
	// cacheTree is the root tree of the TREE extension (git's cache-tree)
	// when it is valid and covers every entry: the tree git write-tree
	// would write for this index, without building it.
	cacheTree    record.Hash
	hasCacheTree bool
	treeExt      []byte // a copy of the TREE extension, for cachedTrees
	// resolveUndo holds the paths of the REUC extension: conflicts that
	// git add resolved (see resolveundo.go).
	resolveUndo map[string]bool
}

// parseCacheTreeRoot reads the root of a TREE extension: an empty path,
// NUL, "<entry count> <subtrees>\n" and, unless the count is -1
// (invalidated), the tree id.
func parseCacheTreeRoot(ext []byte, entries int) (record.Hash, bool) {
	var h record.Hash
	if len(ext) == 0 || ext[0] != 0 {
		return h, false
	}
	rest := ext[1:]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 || len(rest) < nl+1+20 {
		return h, false
	}
	count, _, ok := bytes.Cut(rest[:nl], []byte{' '})
	if !ok {
		return h, false
	}
	n, err := strconv.Atoi(string(count))
	if err != nil || n != entries {
		return h, false
	}
	copy(h[:], rest[nl+1:nl+21])
	return h, true
}

func badIndex(why string) error { return fmt.Errorf("%w: %s", ErrIndexFormat, why) }

// parseIndex parses an index file (versions 2, 3 and 4). It verifies the
// trailing checksum unless it is all zero (index.skipHash), on another
// core while the entries are parsed: hashing a 100,000-entry index costs
// about as much as parsing it.
func parseIndex(data []byte) (*Index, error) {
	if len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return nil, badIndex("no DIRC header")
	}
	body, sum := data[:len(data)-20], data[len(data)-20:]
	summed := make(chan bool, 1)
	if bytes.Equal(sum, make([]byte, 20)) {
		summed <- true
	} else {
		go func() {
			got := sha1.Sum(body)
			summed <- bytes.Equal(got[:], sum)
		}()
	}
	// data may be a mapping its caller releases on return: wait for the
	// hash whatever the entries held.
	idx, err := parseEntries(data)
	if !<-summed {
		return nil, badIndex("checksum mismatch")
	}
	return idx, err
}

// parseEntries parses the entries and extensions of an index whose header
// parseIndex checked.
func parseEntries(data []byte) (*Index, error) {
	bad := badIndex
	body := data[:len(data)-20]
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, bad(fmt.Sprintf("version %d", version))
	}
	count := int(binary.BigEndian.Uint32(data[8:12]))
	idx := &Index{Entries: make([]IndexEntry, 0, count)}
	p := body[12:]
	// Every path is copied into one builder and sliced from its string,
	// one allocation instead of one per entry: the strings share the
	// builder's bytes, which nothing writes again.
	var paths strings.Builder
	paths.Grow(max(len(p)-count*62, 0))
	var prev string
	for i := 0; i < count; i++ {
		if len(p) < 62 {
			return nil, bad("truncated entry")
		}
		e := IndexEntry{
			HasStat:   true,
			CtimeSec:  binary.BigEndian.Uint32(p[0:]),
			CtimeNsec: binary.BigEndian.Uint32(p[4:]),
			MtimeSec:  binary.BigEndian.Uint32(p[8:]),
			MtimeNsec: binary.BigEndian.Uint32(p[12:]),
			Dev:       binary.BigEndian.Uint32(p[16:]),
			Ino:       binary.BigEndian.Uint32(p[20:]),
			Mode:      record.Mode(binary.BigEndian.Uint32(p[24:])),
			UID:       binary.BigEndian.Uint32(p[28:]),
			GID:       binary.BigEndian.Uint32(p[32:]),
			Size:      binary.BigEndian.Uint32(p[36:]),
		}
		copy(e.Hash[:], p[40:60])
		flags := binary.BigEndian.Uint16(p[60:])
		e.Stage = int(flags>>12) & 3
		e.AssumeValid = flags&0x8000 != 0
		off := 62
		if flags&0x4000 != 0 {
			if version < 3 || len(p) < 64 {
				return nil, bad("extended flags in a version 2 index")
			}
			ext := binary.BigEndian.Uint16(p[62:])
			e.SkipWorktree = ext&0x4000 != 0
			e.IntentToAdd = ext&0x2000 != 0
			off = 64
		}
		start := paths.Len()
		if version == 4 {
			strip, n := varint(p[off:])
			if n == 0 || int(strip) > len(prev) {
				return nil, bad("bad path prefix")
			}
			off += n
			nul := bytes.IndexByte(p[off:], 0)
			if nul < 0 {
				return nil, bad("unterminated path")
			}
			paths.WriteString(prev[:len(prev)-int(strip)])
			paths.Write(p[off : off+nul])
			off += nul + 1
		} else {
			nul := bytes.IndexByte(p[off:], 0)
			if nul < 0 {
				return nil, bad("unterminated path")
			}
			paths.Write(p[off : off+nul])
			// Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
			off = (off + nul + 8) &^ 7
			if off > len(p) {
				return nil, bad("truncated entry")
			}
		}
		e.Path = paths.String()[start:]
		prev = e.Path
		idx.Entries = append(idx.Entries, e)
		p = p[off:]
	}
	for len(p) >= 8 {
		sig := string(p[:4])
		size := int(binary.BigEndian.Uint32(p[4:8]))
		if size > len(p)-8 {
			return nil, bad("truncated extension " + sig)
		}
		if sig == "link" {
			if size >= 20 {
				copy(idx.sharedIndex[:], p[8:28])
			}
			return idx, errSplitIndex
		}
		if sig == "TREE" {
			idx.cacheTree, idx.hasCacheTree = parseCacheTreeRoot(p[8:8+size], count)
			idx.treeExt = bytes.Clone(p[8 : 8+size])
		}
		if sig == "REUC" {
			idx.resolveUndo = parseResolveUndo(p[8 : 8+size])
		}
		// Other extensions (UNTR, FSMN, EOIE, IEOT, sdir) are
		// caches or bookkeeping gitguard does not need.
		p = p[8+size:]
	}
	return idx, nil
}

// findStaged looks path up in the index file data as convert.c's
// read_blob_data_from_index does, for a file whose line endings git guesses:
// its stage 0 entry, else its stage 2 ("ours" in a conflict). It decodes
// only the entries' names, without parseIndex's checksum and copies, and
// returns errSplitIndex for a split index, whose entries are partly in
// another file. With unsplit, the caller knows the index is not split (no
// shared index file exists): the look stops at the first name past path,
// entries being sorted by name.
func findStaged(data []byte, path string, unsplit bool) (h record.Hash, ok bool, err error) {
	bad := badIndex
	if len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return h, false, bad("no DIRC header")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return h, false, bad(fmt.Sprintf("version %d", version))
	}
	count := int(binary.BigEndian.Uint32(data[8:12]))
	p := data[12 : len(data)-20]
	var name []byte // version 4: the previous entry's path
	for i := 0; i < count; i++ {
		if len(p) < 62 {
			return h, false, bad("truncated entry")
		}
		flags := binary.BigEndian.Uint16(p[60:])
		stage := int(flags>>12) & 3
		off := 62
		if flags&0x4000 != 0 {
			if version < 3 || len(p) < 64 {
				return h, false, bad("extended flags in a version 2 index")
			}
			off = 64
		}
		var cur []byte
		if version == 4 {
			strip, n := varint(p[off:])
			if n == 0 || int(strip) > len(name) {
				return h, false, bad("bad path prefix")
			}
			off += n
			nul := bytes.IndexByte(p[off:], 0)
			if nul < 0 {
				return h, false, bad("unterminated path")
			}
			name = append(name[:len(name)-int(strip)], p[off:off+nul]...)
			cur = name
			off += nul + 1
		} else {
			// The flags hold the path's length when it is below 0xfff.
			n := int(flags & 0xfff)
			if n == 0xfff {
				n = bytes.IndexByte(p[off:], 0)
			}
			if n < 0 || off+n >= len(p) || p[off+n] != 0 {
				return h, false, bad("unterminated path")
			}
			cur = p[off : off+n]
			off = (off + n + 8) &^ 7
			if off > len(p) {
				return h, false, bad("truncated entry")
			}
		}
		if !ok && (stage == 0 || stage == 2) && string(cur) == path {
			copy(h[:], p[40:60])
			ok = true
		}
		if unsplit && string(cur) > path {
			return h, ok, nil
		}
		p = p[off:]
	}
	for len(p) >= 8 {
		size := int(binary.BigEndian.Uint32(p[4:8]))
		if size > len(p)-8 {
			return h, false, bad("truncated extension " + string(p[:4]))
		}
		if string(p[:4]) == "link" {
			return record.Hash{}, false, errSplitIndex
		}
		p = p[8+size:]
	}
	return h, ok, nil
}

// varint decodes git's offset varint used by index v4 path compression.
func varint(p []byte) (uint64, int) {
	if len(p) == 0 {
		return 0, 0
	}
	c := p[0]
	val := uint64(c & 127)
	n := 1
	for c&128 != 0 {
		if n >= len(p) || n > 9 {
			return 0, 0
		}
		c = p[n]
		n++
		val = ((val + 1) << 7) | uint64(c&127)
	}
	return val, n
}

// readIndexFile reads and parses the index at path. A missing index is an
// empty one (a fresh repository).
//
// The mtime comes from the same open file as the content: git replaces the
// index by rename, and a stat by name could see a newer index than the one
// read, whose later mtime would make racily clean entries look trustworthy.
// For a split index it returns errSplitIndex with the index's Mtime and
// sharedIndex set.
func readIndexFile(path string) (*Index, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Index{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	data, release, err := indexData(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer release()
	idx, err := parseIndex(data)
	if idx != nil {
		idx.Mtime = fi.ModTime().UnixNano()
	}
	return idx, err
}

// mapIndexMin is the index size from which the file is mapped rather than
// read where the platform can (indexmap_unix.go): a 9 MB index read into
// the heap costs a fault and a zeroed page per 4 KiB and grows the heap
// the collector then scans; a mapping is faulted in from the page cache,
// many pages at a time. git replaces the index by rename, never in place,
// so the mapped file does not change under the parse, which copies
// everything it keeps.
const mapIndexMin = 1 << 20

// readIndexData reads the index file f of size bytes in one go into a
// buffer of its size: growing a buffer for an index of 100k entries (9 MB)
// costs more than parsing it.
func readIndexData(f *os.File, size int64) ([]byte, func(), error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}

// cachedTrees returns the valid folders of the index's cache-tree, by
// folder path (see cachetree.go); nil when it has none.
func (idx *Index) cachedTrees() map[string]record.Hash {
	if len(idx.treeExt) == 0 {
		return nil
	}
	return parseCacheTree(idx.treeExt)
}
