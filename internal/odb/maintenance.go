package odb

import (
	"os"
	"path/filepath"
	"strings"
)

// Maintenance returns marks of the git maintenance running in the
// repository now, each a string that stays the same while that one process
// runs: the contents of gc.pid, which git gc holds for its whole run (its
// repack and prune included); objects/maintenance.lock, taken by git
// maintenance run; and the temporary pack files of a git repack or
// pack-objects at work (tmp_pack_*, .tmp-*). None is a guarantee: a git
// prune run on its own leaves no mark. A writer that moved a ref waits
// for the marks it saw then to go (see patchstore's intact.go) before it
// checks its objects a last time, since such a process may have walked the
// refs before the move and delete what it did not see.
func (db *DB) Maintenance() []string {
	common := filepath.Dir(db.objDir)
	var marks []string
	if data, err := os.ReadFile(filepath.Join(common, "gc.pid")); err == nil {
		marks = append(marks, "gc.pid:"+strings.TrimSpace(string(data)))
	}
	if _, err := os.Lstat(filepath.Join(db.objDir, "maintenance.lock")); err == nil {
		marks = append(marks, "objects/maintenance.lock")
	}
	entries, _ := os.ReadDir(filepath.Join(db.objDir, "pack"))
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, "tmp_pack_") || strings.HasPrefix(n, ".tmp-") {
			marks = append(marks, "objects/pack/"+n)
		}
	}
	return marks
}
