package odb

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

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
	loaded bool       // idx lists the pack folder as last read
	idx    []*idxFile // nil when a pack's index is not version 2
	usable bool       // every index is one this reader understands
}

type idxFile struct {
	path     string
	data     []byte // the mapped file
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

func (p *packIndexes) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.idx {
		f.unmap()
	}
	p.idx, p.loaded, p.usable = nil, false, false
}

func (f *idxFile) unmap() {
	unmapFile(f.data)
	if f.packData != nil {
		unmapFile(f.packData)
	}
}

// loadLocked lists the pack folder and maps the index of each pack, taking
// those already mapped from old.
func (p *packIndexes) loadLocked(old []*idxFile) {
	p.loaded, p.usable = true, true
	// Objects borrowed from other repositories: only go-git looks there.
	if _, err := os.Lstat(filepath.Join(filepath.Dir(p.dir), "info", "alternates")); !errors.Is(err, os.ErrNotExist) {
		p.usable = false
		return
	}
	entries, err := os.ReadDir(p.dir)
	if errors.Is(err, os.ErrNotExist) {
		return // no packs at all
	}
	if err != nil {
		p.usable = false
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".idx") {
			continue
		}
		path := filepath.Join(p.dir, name)
		// An index without its pack is git's leftover, not objects.
		if _, err := os.Stat(strings.TrimSuffix(path, ".idx") + ".pack"); err != nil {
			continue
		}
		if i := slices.IndexFunc(old, func(f *idxFile) bool { return f.path == path }); i >= 0 {
			p.idx = append(p.idx, old[i])
			continue
		}
		f, err := mapIndex(path)
		if err != nil {
			if _, serr := os.Stat(path); errors.Is(serr, os.ErrNotExist) {
				continue // deleted since the listing: merged into another pack
			}
			p.usable = false
			return
		}
		p.idx = append(p.idx, f)
	}
}

// idxMagic starts a version 2 pack index.
var idxMagic = []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}

// idxHeader is the size of a version 2 index's magic, version and fan-out table.
const idxHeader = 8 + 256*4

func mapIndex(path string) (*idxFile, error) {
	data, err := mapFile(path, idxHeader+2*20, idxMagic)
	if err != nil {
		return nil, err
	}
	fanout := data[8:idxHeader]
	count := int(binary.BigEndian.Uint32(fanout[255*4:]))
	// names, CRCs and 31-bit offsets, then the two checksums at least
	if idxHeader+count*(20+4+4)+2*20 > len(data) {
		unmapFile(data)
		return nil, errNotHere
	}
	return &idxFile{path: path, data: data, fanout: fanout, names: data[idxHeader : idxHeader+count*20], count: count}, nil
}
