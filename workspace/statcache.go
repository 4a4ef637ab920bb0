package workspace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gitguard/gitguard/internal/atomicfile"
	"github.com/gitguard/gitguard/record"
)

// statKey is the stat data a cached hash is valid for.
type statKey struct {
	Size    int64
	MtimeNs int64
	CtimeNs int64
	Ino     uint64
	Mode    uint32
}

func keyOf(st *fileStat) statKey {
	return statKey{
		Size:    st.size,
		MtimeNs: st.mtimeSec*1e9 + st.mtimeNsec,
		CtimeNs: st.ctimeSec*1e9 + st.ctimeNsec,
		Ino:     st.ino,
		Mode:    st.rawMode,
	}
}

type cacheEntry struct {
	key  statKey
	hash record.Hash
	// conv is the conversion the hash was made under (see
	// conversionSignature): another one makes the file be hashed again.
	// auto says git guessed the file's line endings then.
	conv uint64
	auto bool
}

// statCache remembers the blob ids of files gitguard hashed itself (untracked
// files, and tracked ones whose index entry is stale), keyed by path and
// valid only while their stat data is unchanged. Entries for files changed
// within racyMargin of the snapshot that hashed them are never stored: a
// later write in the same timestamp tick would otherwise go unnoticed.
type statCache map[string]cacheEntry

const statCacheMagic = "gitguard-statcache 3\n"

// racyMargin covers file systems with coarse timestamps (1–2 s on some).
const racyMargin = 2 * time.Second

// maxStatCacheFile bounds the stat cache read back: past it the cache is
// left unread.
const maxStatCacheFile = 1 << 30

func statCachePath(stateDir string) string { return filepath.Join(stateDir, "statcache") }

// loadStatCache reads the cache; a missing or unreadable cache is empty
// (it is only an accelerator), and so is anything but a regular file in
// its place (a fifo would block the walk).
func loadStatCache(stateDir string) statCache {
	data, err := atomicfile.ReadFile(statCachePath(stateDir), maxStatCacheFile)
	if err != nil || !bytes.HasPrefix(data, []byte(statCacheMagic)) {
		return statCache{}
	}
	c := statCache{}
	r := bytes.NewReader(data[len(statCacheMagic):])
	for r.Len() > 0 {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > 1<<16 {
			return statCache{}
		}
		name := make([]byte, n)
		if _, err := io.ReadFull(r, name); err != nil {
			return statCache{}
		}
		var e cacheEntry
		if err := binary.Read(r, binary.LittleEndian, &e.key); err != nil {
			return statCache{}
		}
		if _, err := io.ReadFull(r, e.hash[:]); err != nil {
			return statCache{}
		}
		if err := binary.Read(r, binary.LittleEndian, &e.conv); err != nil {
			return statCache{}
		}
		if err := binary.Read(r, binary.LittleEndian, &e.auto); err != nil {
			return statCache{}
		}
		c[string(name)] = e
	}
	return c
}

// save writes the cache atomically, keeping only entries older than start-racyMargin.
func (c statCache) save(stateDir string, start time.Time) error {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return fmt.Errorf("save stat cache: %w", err)
	}
	tmp, err := os.CreateTemp(stateDir, "statcache.tmp")
	if err != nil {
		return fmt.Errorf("save stat cache: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	w.WriteString(statCacheMagic)
	limit := start.Add(-racyMargin).UnixNano()
	var buf [binary.MaxVarintLen64]byte
	for name, e := range c {
		if e.key.MtimeNs >= limit || e.key.CtimeNs >= limit {
			continue
		}
		w.Write(buf[:binary.PutUvarint(buf[:], uint64(len(name)))])
		w.WriteString(name)
		binary.Write(w, binary.LittleEndian, e.key)
		w.Write(e.hash[:])
		binary.Write(w, binary.LittleEndian, e.conv)
		binary.Write(w, binary.LittleEndian, e.auto)
	}
	if err := errors.Join(w.Flush(), tmp.Close()); err != nil {
		return fmt.Errorf("save stat cache: %w", err)
	}
	if err := atomicfile.Rename(tmp.Name(), statCachePath(stateDir)); err != nil {
		return fmt.Errorf("save stat cache: %w", err)
	}
	return nil
}
