package odb

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/klauspost/compress/zlib"

	"github.com/gitguard/gitguard/internal/git"
)

// A batch collects the small objects written while it is open and stores
// them together when it ends: as one pack when there are many, since a
// loose object costs a file creation, a rename and an fsync of its own
// (the trees and blobs of a first snapshot, some 200 objects, took 100 ms
// that way), and loose otherwise, where a pack would cost more than it saves.

// packMin is the number of objects from which a batch is stored as a pack.
const packMin = 32

// maxBatchBytes bounds the memory a batch holds: past it, the objects
// collected so far are stored at once and collecting goes on. It also keeps
// every pack far below the 2 GiB that 32-bit index offsets address.
const maxBatchBytes = 32 << 20

type batchObject struct {
	t    Type
	data []byte
}

// StartBatch starts collecting small objects in memory until the matching
// EndBatch. Batches nest and may overlap across goroutines: objects are
// stored when the last one ends, or earlier by Sync. Reads see the
// collected objects meanwhile.
func (db *DB) StartBatch() {
	db.bmu.Lock()
	defer db.bmu.Unlock()
	db.batches++
	if db.batch == nil {
		db.batch = map[git.Hash]batchObject{}
	}
}

// EndBatch ends a batch started by StartBatch and, when it was the last
// one open, stores the objects collected.
func (db *DB) EndBatch() error {
	db.bmu.Lock()
	defer db.bmu.Unlock()
	db.batches--
	if db.batches > 0 {
		return nil
	}
	err := db.flushLocked()
	db.batch = nil
	// Every batch is over, so every ref that names their objects has moved:
	// git may repack them now.
	for _, k := range db.keeps {
		_ = os.Remove(k)
	}
	db.keeps = nil
	return err
}

// batchOpen reports whether a batch is collecting objects.
func (db *DB) batchOpen() bool {
	db.bmu.Lock()
	defer db.bmu.Unlock()
	return db.batch != nil
}

// batched returns an object collected by an open batch.
func (db *DB) batched(h git.Hash) (batchObject, bool) {
	db.bmu.Lock()
	defer db.bmu.Unlock()
	o, ok := db.batch[h]
	return o, ok
}

// collect keeps an object in the open batch; false when no batch is open.
func (db *DB) collect(h git.Hash, t Type, data []byte) bool {
	db.bmu.Lock()
	defer db.bmu.Unlock()
	if db.batch == nil {
		return false
	}
	if _, ok := db.batch[h]; !ok {
		db.batch[h] = batchObject{t: t, data: data} // Write passes its own copy
		db.batchBytes += len(data)
	}
	if db.batchBytes >= maxBatchBytes {
		if err := db.flushLocked(); err != nil {
			// Stored on its own instead, by the caller.
			delete(db.batch, h)
			return false
		}
	}
	return true
}

// flushLocked stores the collected objects. db.bmu must be held.
func (db *DB) flushLocked() error {
	if len(db.batch) == 0 {
		return nil
	}
	ids := make([]git.Hash, 0, len(db.batch))
	for h := range db.batch {
		ids = append(ids, h)
	}
	slices.SortFunc(ids, func(a, b git.Hash) int { return bytes.Compare(a[:], b[:]) })
	if len(ids) >= packMin || (db.packAlways > 0 && len(ids) > 1) {
		if err := db.writePack(ids); err != nil {
			return err
		}
	} else {
		for _, h := range ids {
			o := db.batch[h]
			if err := db.writeLoose(h, o.t, o.data); err != nil {
				return err
			}
		}
	}
	clear(db.batch)
	db.batchBytes = 0
	return nil
}

// writePack stores the batch's objects ids (sorted) as a version 2 pack
// and its index, as git's pack-objects writes them (undeltified), under
// the name git gives a pack: its checksum.
func (db *DB) writePack(ids []git.Hash) error {
	var base string
	var err error
	get := func(h git.Hash) (Type, []byte, error) { o := db.batch[h]; return o.t, o.data, nil }
	for try := 0; try < maxTempTries; try++ {
		// A temporary file that git prune deleted before its rename is
		// written again.
		if base, err = db.writePackFile(ids, get, true); !errors.Is(err, errTempGone) {
			break
		}
	}
	if err != nil {
		return err
	}
	db.keeps = append(db.keeps, base+".keep")
	db.listOwnPack(base) // see ownpacks.go
	return nil
}

// keepNote is the content of the .keep file that guards a pack a batch
// wrote until the batch ends (see writePackFile).
const keepNote = "gitguard: objects no ref names yet\n"

// writePackFile writes the objects ids (sorted), read with get, as one
// pack. With keep, a .keep file is installed before the pack: git repack
// -a -d (and so git gc) neither deletes a kept pack nor copies its objects,
// so a repack that started before the ref naming these objects moved
// cannot drop them as unreachable, the window an in-flight pack is exposed
// in. git's own receive-pack guards incoming packs the same way. The batch
// removes its .keep files when it ends, after the ref moved.
func (db *DB) writePackFile(ids []git.Hash, get func(git.Hash) (Type, []byte, error), keep bool) (string, error) {
	deflate := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(deflate)
	store := zlibStorers.Get().(*zlib.Writer)
	defer zlibStorers.Put(store)
	return db.writePackWith(ids, keep, func(w io.Writer, h git.Hash) error {
		t, data, err := get(h)
		if err != nil {
			return err
		}
		w.Write(packEntryHeader(t, len(data)))
		zw := deflate
		if t == TypeTree && len(data) <= storeTreeMax {
			zw = store
		}
		zw.Reset(w)
		zw.Write(data)
		return zw.Close()
	})
}

// writePackWith is writePackFile with each entry (header and compressed
// data) written by entry.
func (db *DB) writePackWith(ids []git.Hash, keep bool, entry func(w io.Writer, h git.Hash) error) (_ string, err error) {
	dir := filepath.Join(db.objDir, "pack")
	if _, err := os.Stat(dir); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("write pack: %w", err)
		}
		// A new folder, flushed with the packs it holds (see syncNames).
		db.pmu.Lock()
		db.pending = append(db.pending, dir)
		db.pmu.Unlock()
	}
	pack, err := db.createTemp(dir, "tmp_pack_")
	if err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}
	defer os.Remove(pack.Name())
	defer pack.Close()

	sum := sha1.New()
	bw := packBuffers.Get().(*bufio.Writer)
	defer func() {
		bw.Reset(nil) // holds no file while pooled
		packBuffers.Put(bw)
	}()
	bw.Reset(io.MultiWriter(pack, sum))
	pw := &countingWriter{w: bw}
	var hdr [12]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(ids)))
	pw.Write(hdr[:])
	offsets := make([]uint64, len(ids))
	crcs := make([]uint32, len(ids))
	crc := crc32.NewIEEE()
	ew := io.MultiWriter(pw, crc)
	for i, h := range ids {
		offsets[i] = uint64(pw.n)
		crc.Reset()
		if err := entry(ew, h); err != nil {
			return "", fmt.Errorf("write pack: %w", err)
		}
		crcs[i] = crc.Sum32()
	}
	if err := errors.Join(pw.err, bw.Flush()); err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}
	var checksum git.Hash
	sum.Sum(checksum[:0])
	if _, err := pack.Write(checksum[:]); err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}

	idx, err := db.createTemp(dir, "tmp_idx_")
	if err != nil {
		return "", fmt.Errorf("write pack index: %w", err)
	}
	defer os.Remove(idx.Name())
	defer idx.Close()
	bw.Reset(idx)
	if err := errors.Join(writeIndex(bw, ids, crcs, offsets, checksum), bw.Flush()); err != nil {
		return "", fmt.Errorf("write pack index: %w", err)
	}

	// The pack before its index, as git does: an index is what makes a
	// pack's objects visible, and it must never name a missing pack.
	base := filepath.Join(dir, "pack-"+checksum.String())
	if keep {
		if err := db.writeKeep(base + ".keep"); err != nil {
			return "", fmt.Errorf("write pack: %w", err)
		}
		defer func() {
			if err != nil {
				_ = os.Remove(base + ".keep")
			}
		}()
	}
	if err := db.installAt(pack, base+".pack"); err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}
	if err := db.installAt(idx, base+".idx"); err != nil {
		return "", fmt.Errorf("write pack index: %w", err)
	}
	db.packs.added(base + ".idx")
	return base, nil
}

// packEntryHeader is a pack entry's type and size: the type in bits 4-6 of
// the first byte, the size in its low 4 bits and then 7 bits a byte.
func packEntryHeader(t Type, size int) []byte {
	code := byte(slices.Index(packTypes[:], t))
	b := []byte{code<<4 | byte(size&0x0f)}
	for size >>= 4; size > 0; size >>= 7 {
		b[len(b)-1] |= 0x80
		b = append(b, byte(size&0x7f))
	}
	return b
}

// writeIndex writes a version 2 pack index to w: fan-out, sorted ids,
// CRCs, 31-bit offsets and the 64-bit ones from 2 GiB on, the pack's
// checksum and the index's own. It streams: the index of a merge of the
// run's large packs is megabytes, which a buffer of it would hold (and
// double as it grew) beside everything else the merge holds.
func writeIndex(w io.Writer, ids []git.Hash, crcs []uint32, offsets []uint64, pack git.Hash) error {
	sum := sha1.New()
	cw := &countingWriter{w: io.MultiWriter(w, sum)}
	cw.Write(idxMagic)
	var fanout [256]uint32
	for _, h := range ids {
		fanout[h[0]]++
	}
	var b [4]byte
	u32 := func(v uint32) {
		binary.BigEndian.PutUint32(b[:], v)
		cw.Write(b[:])
	}
	var total uint32
	for i := range fanout {
		total += fanout[i]
		u32(total)
	}
	for _, h := range ids {
		cw.Write(h[:])
	}
	for _, c := range crcs {
		u32(c)
	}
	// An offset from 2 GiB on (a merge of large packs) is an index into
	// the table of 64-bit offsets that follows, as git writes it.
	var large []uint64
	for _, off := range offsets {
		if off < 1<<31 {
			u32(uint32(off))
			continue
		}
		u32(1<<31 | uint32(len(large)))
		large = append(large, off)
	}
	var b8 [8]byte
	for _, off := range large {
		binary.BigEndian.PutUint64(b8[:], off)
		cw.Write(b8[:])
	}
	cw.Write(pack[:])
	if cw.err != nil {
		return cw.err
	}
	_, err := w.Write(sum.Sum(nil))
	return err
}

// packBuffers are the write buffers of writePackWith, reused: the daemon
// writes a pack per hook event.
var packBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64<<10) }}

// countingWriter counts the bytes written and keeps the first error.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}
