package odb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gitguard/gitguard/internal/git"
)

// packIndexes answers "is this object in a pack?" from the packs' .idx
// files, mapped into memory and binary-searched as git does. go-git decodes
// every index whole on its first lookup, which costs a short command on a
// 100k-object repository more than the rest of its work; existence checks
// (every record's blobs are checked, every object written is looked up
// first) need no decoding at all.
type packIndexes struct {
	mu     sync.Mutex
	dir    string     // objects/pack
	alts   []string   // the alternates' pack folders, read after dir
	loaded bool       // idx lists the pack folder as last read
	idx    []*idxFile // nil when a pack's index is not version 2
	usable bool       // every index is one this reader understands
	lists  int        // times the pack folder was listed (for tests)

	idle *time.Timer // lets the mapped pages go once operations pause (releaseWhenIdle)
}

type idxFile struct {
	path     string
	data     []byte // the mapped file, or the file read whole when small
	mapped   bool   // data is a mapping to unmap
	fanout   []byte // 256 big-endian counts
	names    []byte // count × 20 bytes, sorted
	count    int
	packData []byte // the mapped .pack, once an object was read from it
}

// has reports whether h is in one of the packs; known is false when the
// packs cannot be read this way (an old index format, no mmap) and the
// caller must ask go-git.
func (p *packIndexes) has(h git.Hash) (found, known bool) {
	pack, known := p.find(h)
	return pack != "", known
}

// find returns the path of the .pack file holding h ("" when none does);
// known is as for has.
func (p *packIndexes) find(h git.Hash) (pack string, known bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.loaded {
		p.loadLocked(nil)
	}
	if !p.usable {
		return "", false
	}
	for _, f := range p.idx {
		if f.has(h) {
			return strings.TrimSuffix(f.path, ".idx") + ".pack", true
		}
	}
	return "", true
}

// rescan reads the pack folder again, so that the next lookup sees packs a
// concurrent git gc or repack wrote, as git's reprepare_packed_git does.
// Packs still listed stay mapped: a pack's name is its content's hash.
func (p *packIndexes) rescan() {
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.idx
	p.idx = nil
	p.loadLocked(old)
	for _, f := range old {
		if !slices.Contains(p.idx, f) {
			f.unmap()
		}
	}
}

// added makes the pack whose index this process just installed visible to
// lookups without listing the pack folder again: a lookup that misses, and
// every Ensure, still lists it for packs other processes wrote or deleted.
func (p *packIndexes) added(path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.loaded || !p.usable {
		return // the first lookup lists the folder; go-git reads unusable ones
	}
	if slices.ContainsFunc(p.idx, func(f *idxFile) bool { return f.path == path }) {
		return // the same objects written again: the same pack
	}
	f, err := mapIndex(path)
	if err != nil {
		p.loaded = false // list the folder at the next lookup
		for _, f := range p.idx {
			f.unmapWhenUnreachable()
		}
		p.idx = nil
		return
	}
	p.idx = append(p.idx, f)
}

// close forgets the packs. Their mappings are released with the last
// reference to them, by the garbage collector: a process about to exit
// (most commands close their repository last) then unmaps nothing, where
// each munmap of a multi-threaded process costs a TLB flush on every core
// its threads ran on.
func (p *packIndexes) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle != nil {
		p.idle.Stop()
		p.idle = nil
	}
	for _, f := range p.idx {
		f.unmapWhenUnreachable()
	}
	p.idx, p.loaded, p.usable = nil, false, false
}

// releaseIdle is how long after the last operation ended a process lets go
// of the pages of its mapped packs and indexes (releaseWhenIdle).
const releaseIdle = time.Second

// releaseWhenIdle lets go of the pages of the mapped indexes and packs
// releaseIdle from now, unless another call comes first or busy then says
// an operation is under way. A process about to exit never gets there.
func (p *packIndexes) releaseWhenIdle(busy func() bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle != nil {
		p.idle.Reset(releaseIdle)
		return
	}
	p.idle = time.AfterFunc(releaseIdle, func() {
		if !busy() {
			p.releaseMapped()
		}
	})
}

// releaseMapped lets go of the pages of the mapped indexes and packs that
// this process has read. A mapping stays mapped and its pages stay in the
// page cache: the next read of one faults it in again, from memory.
// Without this, a process that reads objects for hours (the watch daemon)
// ends up holding, as its own resident memory, every page of the
// repository's packs it ever touched: an index lookup that misses, as
// every check for a new object does, reads a few pages of every pack's
// index, and the kernel maps 16 pages around each. The pages go when each
// operation ends (DB.Memo): let go at most once a second, they made the
// daemon's resident set grow by 10 MiB over 10,000 tool uses (a hook event
// every 8 ms reads a second's worth of pages); let go every time, it stays
// flat, and an event's time is the same within 0.3 ms (bench/README.md).
func (p *packIndexes) releaseMapped() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.idx {
		if f.mapped {
			releaseFile(f.data)
		}
		if f.packData != nil {
			releaseFile(f.packData)
		}
	}
}

// mappings are what an idxFile maps: its index (nil when read whole) and
// its pack.
type mappings struct{ idx, pack []byte }

func (m mappings) unmap() {
	if m.idx != nil {
		unmapFile(m.idx)
	}
	if m.pack != nil {
		unmapFile(m.pack)
	}
}

func (f *idxFile) mappings() mappings {
	m := mappings{pack: f.packData}
	if f.mapped {
		m.idx = f.data
	}
	return m
}

// unmap releases f's mappings now; f must not be used after.
func (f *idxFile) unmap() { f.mappings().unmap() }

// unmapWhenUnreachable releases f's mappings once nothing references f.
// The mapped memory is not the garbage collector's, so the slices passed
// along do not keep f reachable.
func (f *idxFile) unmapWhenUnreachable() {
	if m := f.mappings(); m.idx != nil || m.pack != nil {
		runtime.AddCleanup(f, mappings.unmap, m)
	}
}

// loadLocked lists the pack folders, the repository's own and then its
// alternates', and maps the index of each pack, taking those already
// mapped from old.
func (p *packIndexes) loadLocked(old []*idxFile) {
	p.loaded, p.usable = true, true
	p.lists++
	for _, dir := range append([]string{p.dir}, p.alts...) {
		if !p.listLocked(dir, old) {
			p.usable = false
			return
		}
	}
}

// listLocked adds the packs of the folder dir to p.idx; false when one of
// them cannot be read this way.
func (p *packIndexes) listLocked(dir string, old []*idxFile) bool {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true // no packs at all
	}
	if err != nil {
		return false
	}
	packs := map[string]bool{}
	for _, e := range entries {
		if base, ok := strings.CutSuffix(e.Name(), ".pack"); ok {
			packs[base] = true
		}
	}
	for _, e := range entries {
		name := e.Name()
		base, ok := strings.CutSuffix(name, ".idx")
		// An index without its pack is git's leftover, not objects. The
		// listing says which packs exist, without a stat of each.
		if !ok || !packs[base] {
			continue
		}
		path := filepath.Join(dir, name)
		if i := slices.IndexFunc(old, func(f *idxFile) bool { return f.path == path }); i >= 0 {
			p.idx = append(p.idx, old[i])
			continue
		}
		f, err := mapIndex(path)
		if err != nil {
			if _, serr := os.Stat(path); errors.Is(serr, os.ErrNotExist) {
				continue // deleted since the listing: merged into another pack
			}
			return false
		}
		p.idx = append(p.idx, f)
	}
	return true
}

// idxMagic starts a version 2 pack index.
var idxMagic = []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}

// idxHeader is the size of a version 2 index's magic, version and fan-out table.
const idxHeader = 8 + 256*4

// readWholeIndex is the size up to which an index is read into memory
// rather than mapped: gitguard's own packs, one or a few checkpoints each,
// have indexes of a few KiB, which one read costs less than a mapping, its
// page faults and its munmap.
const readWholeIndex = 64 << 10

func mapIndex(path string) (*idxFile, error) {
	data, mapped, err := loadIndexFile(path)
	if err != nil {
		return nil, err
	}
	fanout := data[8:idxHeader]
	count := int(binary.BigEndian.Uint32(fanout[255*4:]))
	// names, CRCs and 31-bit offsets, then the two checksums at least
	if idxHeader+count*(20+4+4)+2*20 > len(data) {
		if mapped {
			unmapFile(data)
		}
		return nil, errNotHere
	}
	return &idxFile{path: path, data: data, mapped: mapped, fanout: fanout, names: data[idxHeader : idxHeader+count*20], count: count}, nil
}

// loadIndexFile reads a version 2 index whole when it is small and maps
// it otherwise; mapped says which. A file too short or not starting with
// idxMagic is errNotHere.
func loadIndexFile(path string) (data []byte, mapped bool, err error) {
	data, size, err := readWhole(path, readWholeIndex)
	if err != nil {
		return nil, false, err
	}
	if size > readWholeIndex {
		data, err := mapFile(path, idxHeader+2*20, idxMagic)
		return data, err == nil, err
	}
	if size < idxHeader+2*20 || !bytes.HasPrefix(data, idxMagic) {
		return nil, false, errNotHere
	}
	return data, false, nil
}

// indexCount returns the number of objects a version 2 index lists, read
// from the last entry of its fan-out table without loading the rest.
func indexCount(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var head [idxHeader]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return 0, errNotHere
		}
		return 0, err
	}
	if !bytes.HasPrefix(head[:], idxMagic) {
		return 0, errNotHere
	}
	count := int(binary.BigEndian.Uint32(head[idxHeader-4:]))
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if int64(idxHeader+count*(20+4+4)+2*20) > fi.Size() {
		return 0, errNotHere
	}
	return count, nil
}
