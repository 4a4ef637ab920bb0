package odb

import (
	"io"
	"os"

	"github.com/gitguard/gitguard/internal/git"
)

// AdoptLoose makes loose objects another process (git hash-object -w)
// wrote part of the next Sync, as if they had been written here: git then
// need not fsync each one itself. Objects that are not loose (git found
// them already packed) are left alone.
//
// While a batch is open, a small object is read into it instead and goes
// out in the batch's pack, whose one fsync makes it durable: the loose copy
// is left as git wrote it (unsynced, as git's own default core.fsync
// leaves loose objects), and readers, git's and this package's, look in
// packs first. A first snapshot whose files git converts otherwise
// fsynced every such object and its new fan-out folder, 100 fsyncs for 55
// files.
func (db *DB) AdoptLoose(ids []git.Hash) {
	var found []string
	for _, h := range ids {
		p := db.loosePath(h)
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if db.adoptIntoBatch(h, fi.Size()) {
			continue
		}
		found = append(found, p)
	}
	if len(found) == 0 {
		return
	}
	db.pmu.Lock()
	db.pending = append(db.pending, found...)
	db.pmu.Unlock()
	db.dirty.Store(true)
}

// adoptIntoBatch reads the loose object h (fileSize bytes on disk) into the
// open batch; false when no batch is open or the object is big, unreadable
// or not what its name says.
func (db *DB) adoptIntoBatch(h git.Hash, fileSize int64) bool {
	if fileSize > smallFile || !db.batchOpen() {
		return false
	}
	t, r, size, err := db.openLoose(h)
	if err != nil {
		return false
	}
	defer r.Close()
	if size > smallFile {
		return false
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil || HashObject(t, data) != h {
		return false
	}
	db.kept.add(h, keptObject{t: t, data: data})
	return db.collect(h, t, data)
}
