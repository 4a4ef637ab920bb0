package workspace

import (
	"errors"
	"os"
	"sort"
	"strings"

	"github.com/gitguard/gitguard/record"
)

// A folder or file the walk may not read (no read or search permission) is
// skipped loudly, as git status warns "could not open directory" and goes
// on: it is listed in Snapshot.Skipped with the reason, and the rest of the
// work tree is recorded. What is below an unreadable folder is unknown, so
// its tracked entries keep the index's state, as skip-worktree entries do,
// and its untracked files are absent; a reader of the snapshot must not
// take either for a change (a path below a skipped folder is skipped too,
// see SkippedCovers).

// Reasons a path is skipped for lack of permission.
const (
	ReasonUnreadableFolder = "cannot read folder: permission denied; nothing below it is recorded"
	ReasonUnreadableFile   = "cannot read file: permission denied"
)

// unreadableFolder skips the folder dir, which could not be opened.
func (s *scan) unreadableFolder(dir string) {
	s.w.log.Info("folder not recorded: permission denied", "path", dir)
	s.skip(dir, ReasonUnreadableFolder)
	s.mu.Lock()
	s.unreadable = append(s.unreadable, dir)
	s.mu.Unlock()
}

// unreadableFile skips rel when err says it may not be read, and reports
// whether it did.
func (s *scan) unreadableFile(rel string, err error) bool {
	if err == nil || !errors.Is(err, os.ErrPermission) {
		return false
	}
	s.w.log.Info("file not recorded: permission denied", "path", rel)
	s.skip(rel, ReasonUnreadableFile)
	return true
}

// keepUnreadable gives the tracked entries below the unreadable folders the
// index's state: the walk never saw them, which is no evidence of a delete.
func (s *scan) keepUnreadable() {
	entries := s.idx.Entries
	for _, dir := range s.unreadable {
		prefix := dir + "/"
		i := sort.Search(len(entries), func(i int) bool { return entries[i].Path >= prefix })
		for ; i < len(entries) && strings.HasPrefix(entries[i].Path, prefix); i++ {
			if e := &entries[i]; s.results[i].mode == record.ModeNone && e.Stage == 0 {
				s.results[i] = trackedResult{mode: e.Mode, hash: e.Hash}
			}
		}
	}
}

// SkippedCovers reports whether path is one of the skipped paths or lies
// below one of them (a skipped folder).
func SkippedCovers(skipped []record.Skipped, path string) bool {
	for _, sk := range skipped {
		if path == sk.Path || (strings.HasPrefix(path, sk.Path) && path[len(sk.Path)] == '/') {
			return true
		}
	}
	return false
}
