package odb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gitguard/gitguard/internal/git"
)

// Reading packed objects without go-git, whose pack reader needs the whole
// index decoded first. Objects are found through the mapped .idx (version
// 2), read from the mapped .pack, their delta chains resolved, and their
// id checked before they are returned, so a mistake here can only send the
// caller to go-git, never return wrong content.

// maxPackedInMemory is the largest object read this way; bigger ones are
// streamed by go-git.
const maxPackedInMemory = 16 << 20

// maxDeltaDepth bounds a delta chain (git's default is 50).
const maxDeltaDepth = 1000

// errNotHere sends the caller to go-git.
var errNotHere = errors.New("object not readable from the mapped packs")

// read returns a packed object's type and content.
func (p *packIndexes) read(h git.Hash) (Type, []byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.loaded {
		p.loadLocked(nil)
	}
	if !p.usable {
		return "", nil, errNotHere
	}
	for _, f := range p.idx {
		if i, ok := f.find(h); ok {
			t, data, err := f.objectAt(p, f.offset(i), 0)
			if err != nil {
				return "", nil, err
			}
			if HashObject(t, data) != h {
				return "", nil, fmt.Errorf("%w: packed object %s does not hash to its id", errNotHere, h)
			}
			return t, data, nil
		}
	}
	return "", nil, errNotHere
}

// find returns h's position in the index.
func (f *idxFile) find(h git.Hash) (int, bool) {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(f.fanout[(int(h[0])-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(f.fanout[int(h[0])*4:]))
	if hi > f.count || lo > hi {
		return 0, false
	}
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(f.names[mid*20:mid*20+20], h[:]); {
		case c == 0:
			return mid, true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

func (f *idxFile) has(h git.Hash) bool {
	_, ok := f.find(h)
	return ok
}

// offset is the pack offset of the object at index position i: a 31-bit
// offset, or an index into the table of 64-bit ones.
func (f *idxFile) offset(i int) int64 {
	offsets := idxHeader + f.count*(20+4)
	o := binary.BigEndian.Uint32(f.data[offsets+i*4:])
	if o&0x80000000 == 0 {
		return int64(o)
	}
	large := offsets + f.count*4 + int(o&0x7fffffff)*8
	if large+8 > len(f.data) {
		return -1
	}
	return int64(binary.BigEndian.Uint64(f.data[large:]))
}

// pack maps the .pack file that goes with the index.
func (f *idxFile) pack() ([]byte, error) {
	if f.packData != nil {
		return f.packData, nil
	}
	data, err := mapFile(strings.TrimSuffix(f.path, ".idx")+".pack", 12+20, []byte("PACK"))
	if err != nil {
		return nil, err
	}
	f.packData = data
	return data, nil
}

var packTypes = [8]Type{1: TypeCommit, 2: TypeTree, 3: TypeBlob, 4: "tag"}

// objectAt reads the object at offset off of f's pack, resolving deltas.
func (f *idxFile) objectAt(p *packIndexes, off int64, depth int) (Type, []byte, error) {
	if depth > maxDeltaDepth {
		return "", nil, fmt.Errorf("%w: delta chain deeper than %d", errNotHere, maxDeltaDepth)
	}
	data, err := f.pack()
	if err != nil {
		return "", nil, err
	}
	end := int64(len(data)) - 20 // the trailing checksum
	if off < 12 || off >= end {
		return "", nil, fmt.Errorf("%w: offset %d outside the pack", errNotHere, off)
	}
	pos := off
	c := data[pos]
	pos++
	kind := (c >> 4) & 7
	size := int64(c & 15)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if pos >= end || shift > 56 {
			return "", nil, fmt.Errorf("%w: bad object header at %d", errNotHere, off)
		}
		c = data[pos]
		pos++
		size |= int64(c&0x7f) << shift
	}
	if size > maxPackedInMemory {
		return "", nil, fmt.Errorf("%w: %d bytes is streamed instead", errNotHere, size)
	}
	var baseType Type
	var base []byte
	switch kind {
	case 1, 2, 3, 4:
	case 6: // OFS_DELTA: the base is earlier in this pack
		if pos >= end {
			return "", nil, errNotHere
		}
		c = data[pos]
		pos++
		back := int64(c & 0x7f)
		for c&0x80 != 0 {
			if pos >= end || back > 1<<55 {
				return "", nil, errNotHere
			}
			c = data[pos]
			pos++
			back = ((back + 1) << 7) | int64(c&0x7f)
		}
		if back <= 0 || back > off {
			return "", nil, fmt.Errorf("%w: delta base offset out of range at %d", errNotHere, off)
		}
		if baseType, base, err = f.objectAt(p, off-back, depth+1); err != nil {
			return "", nil, err
		}
	case 7: // REF_DELTA: the base is named by id, in this pack
		if pos+20 > end {
			return "", nil, errNotHere
		}
		var id git.Hash
		copy(id[:], data[pos:pos+20])
		pos += 20
		i, ok := f.find(id)
		if !ok {
			return "", nil, fmt.Errorf("%w: delta base %s outside the pack", errNotHere, id)
		}
		if baseType, base, err = f.objectAt(p, f.offset(i), depth+1); err != nil {
			return "", nil, err
		}
	default:
		return "", nil, fmt.Errorf("%w: object type %d at %d", errNotHere, kind, off)
	}
	body, err := inflate(data[pos:end], size)
	if err != nil {
		return "", nil, fmt.Errorf("%w: at %d: %w", errNotHere, off, err)
	}
	if base == nil {
		return packTypes[kind], body, nil
	}
	out, err := applyDelta(base, body)
	if err != nil {
		return "", nil, fmt.Errorf("%w: at %d: %w", errNotHere, off, err)
	}
	return baseType, out, nil
}

func inflate(src []byte, size int64) ([]byte, error) {
	z, err := newInflater(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	defer z.release()
	out := make([]byte, size)
	if _, err := io.ReadFull(z.zr, out); err != nil {
		return nil, err
	}
	return out, nil
}

// applyDelta rebuilds an object from its base and a git delta: the two
// sizes, then copy (from the base) and insert (literal) instructions.
func applyDelta(base, delta []byte) ([]byte, error) {
	varint := func() (int64, bool) {
		var v int64
		for shift := 0; shift < 64; shift += 7 {
			if len(delta) == 0 {
				return 0, false
			}
			c := delta[0]
			delta = delta[1:]
			v |= int64(c&0x7f) << shift
			if c&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	srcSize, ok1 := varint()
	dstSize, ok2 := varint()
	if !ok1 || !ok2 || srcSize != int64(len(base)) || dstSize > maxPackedInMemory {
		return nil, errors.New("bad delta header")
	}
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0:
			var off, n int64
			for i := 0; i < 4; i++ {
				if op&(1<<i) != 0 {
					if len(delta) == 0 {
						return nil, errors.New("truncated copy")
					}
					off |= int64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			for i := 0; i < 3; i++ {
				if op&(0x10<<i) != 0 {
					if len(delta) == 0 {
						return nil, errors.New("truncated copy")
					}
					n |= int64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > int64(len(base)) || int64(len(out))+n > dstSize {
				return nil, errors.New("copy out of range")
			}
			out = append(out, base[off:off+n]...)
		case op != 0:
			n := int(op)
			if n > len(delta) || int64(len(out)+n) > dstSize {
				return nil, errors.New("insert out of range")
			}
			out = append(out, delta[:n]...)
			delta = delta[n:]
		default:
			return nil, errors.New("reserved delta opcode 0")
		}
	}
	if int64(len(out)) != dstSize {
		return nil, errors.New("delta result has the wrong size")
	}
	return out, nil
}
