package odb

import (
	"os"

	"github.com/gitguard/gitguard/internal/git"
)

// AdoptLoose makes loose objects another process (git hash-object -w)
// wrote part of the next Sync, as if they had been written here: git then
// need not fsync each one itself. Objects that are not loose (git found
// them already packed) are left alone.
func (db *DB) AdoptLoose(ids []git.Hash) {
	var found []string
	for _, h := range ids {
		p := db.loosePath(h)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		return
	}
	db.pmu.Lock()
	db.pending = append(db.pending, found...)
	db.pmu.Unlock()
	db.dirty.Store(true)
}
