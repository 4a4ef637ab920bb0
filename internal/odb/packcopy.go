package odb

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/gitguard/gitguard/internal/git"
)

// Merging gitguard's own packs by copying their entries as stored: an
// entry of a pack writePackFile wrote is one whole object, zlib-compressed,
// never a delta, so it can go into the merged pack byte for byte. A merge
// then costs the bytes it copies instead of an inflate, a hash and a
// deflate of every object (most of an agent hook's CPU, on average, when
// its checkpoint's pack set off a merge).

// A merge reads each pack it copies from start to end, since every one of
// them is written in object id order and the merged pack is too. What it
// has read it lets go of as it goes (copyReleaseChunk at a time): a
// mapped page read stays in the process's resident set until then, and a
// merge of the run's large packs (tens of MiB after a long session) made
// the watch daemon's resident set jump by as much while it ran.

// copyReleaseChunk is how much of a pack being copied may stay resident
// behind the entry being read.
const copyReleaseChunk = 1 << 20

// ownEntries is one pack's entries, ready to be copied.
type ownEntries struct {
	idx      *idxFile
	pack     []byte
	offs     []int64 // the entries' offsets, sorted
	released int64   // the pages of pack below this offset were let go
}

func openOwnEntries(base string) (*ownEntries, error) {
	idx, err := mapIndex(base + ".idx")
	if err != nil {
		return nil, err
	}
	pack, err := idx.pack()
	if err != nil {
		idx.unmap()
		return nil, err
	}
	offs := make([]int64, idx.count)
	for i := range offs {
		if offs[i] = idx.offset(i); offs[i] < 12 {
			idx.unmap()
			return nil, errNotHere
		}
	}
	slices.Sort(offs)
	for i, o := range offs {
		if o >= int64(len(pack)-20) || i > 0 && offs[i-1] == o {
			idx.unmap()
			return nil, errNotHere
		}
	}
	return &ownEntries{idx: idx, pack: pack, offs: offs}, nil
}

// end returns the offset where the entry at off ends: the next entry, or
// the pack's checksum after the last one.
func (e *ownEntries) end(off int64) int64 {
	if i, _ := slices.BinarySearch(e.offs, off+1); i < len(e.offs) {
		return e.offs[i]
	}
	return int64(len(e.pack) - 20)
}

// releaseBelow lets go of the resident pages of the pack below off, once
// copyReleaseChunk of them accumulated. Pages read again later (entries
// not asked for in pack order) are faulted in again from the page cache.
func (e *ownEntries) releaseBelow(off int64) {
	page := int64(os.Getpagesize())
	to := off / page * page
	if to-e.released < copyReleaseChunk {
		return
	}
	releaseFile(e.pack[e.released:to])
	e.released = to
}

// entry returns h's entry as stored, when this pack has it, after checking
// it against the CRC-32 the index keeps and that it is a whole object.
func (e *ownEntries) entry(h git.Hash) ([]byte, bool, error) {
	i, ok := e.idx.find(h)
	if !ok {
		return nil, false, nil
	}
	off := e.idx.offset(i)
	if off < e.released {
		e.released = off / int64(os.Getpagesize()) * int64(os.Getpagesize())
	} else {
		e.releaseBelow(off)
	}
	raw := e.pack[off:e.end(off)]
	crc := binary.BigEndian.Uint32(e.idx.data[idxHeader+e.idx.count*20+i*4:])
	if kind := raw[0] >> 4 & 7; kind < 1 || kind > 4 || crc32.ChecksumIEEE(raw) != crc {
		return nil, true, fmt.Errorf("%w: entry of %s in %s", errNotHere, h, filepath.Base(e.idx.path))
	}
	return raw, true, nil
}

// copyOwnPacks writes the objects ids (sorted), each taken from the first
// of packs that has it, as one new pack of their entries as stored. It
// returns an error wrapping errNotHere when an entry cannot be taken so
// (an index it cannot map, a delta, an entry whose CRC does not match):
// the caller then writes the objects from their content.
func (db *DB) copyOwnPacks(packs []ownPack, ids []git.Hash) (string, error) {
	var srcs []*ownEntries
	defer func() {
		for _, s := range srcs {
			s.idx.unmap()
		}
	}()
	for _, p := range packs {
		s, err := openOwnEntries(filepath.Join(db.objDir, "pack", p.name))
		if err != nil {
			return "", fmt.Errorf("%w: %s: %w", errNotHere, p.name, err)
		}
		srcs = append(srcs, s)
	}
	return db.writePackWith(ids, false, func(w io.Writer, h git.Hash) error {
		for _, s := range srcs {
			raw, found, err := s.entry(h)
			if err != nil {
				return err
			}
			if found {
				_, err := w.Write(raw)
				return err
			}
		}
		return fmt.Errorf("%w: %s in none of the packs merged", errNotHere, h)
	})
}
