package workspace

import (
	"context"
	"fmt"
	"strings"

	"github.com/gitguard/gitguard/record"
)

// Files whose content git converts (see filters.go) are hashed by git: one
// `git hash-object -w --stdin-paths` per snapshot instead of a process per
// file, started with the first such file and fed while the walk goes on.

// convertedFile is a file the walk left for git to hash.
type convertedFile struct {
	rel       string
	key       statKey // its stat data when the walk saw it
	conv      uint64  // its conversion, for the stat cache (see cacheEntry)
	auto      bool
	cacheable bool
}

// indexedAttrDirs returns the folders whose .gitattributes is in the index:
// git reads that copy when the work tree has none.
func indexedAttrDirs(idx *Index) func(dir string) bool {
	dirs := map[string]bool{}
	for i := range idx.Entries {
		p := idx.Entries[i].Path
		if p == ".gitattributes" {
			dirs[""] = true
		} else if d, ok := strings.CutSuffix(p, "/.gitattributes"); ok {
			dirs[d] = true
		}
	}
	return func(dir string) bool { return dirs[dir] }
}

// leaveToGit queues the file rel for git, which starts hashing it at once
// (see git.PathHasher) while the walk goes on.
func (s *scan) leaveToGit(rel string, st *fileStat, conv uint64, auto, cacheable bool) {
	s.mu.Lock()
	s.converted = append(s.converted, convertedFile{rel: rel, key: keyOf(st), conv: conv, auto: auto, cacheable: cacheable})
	s.mu.Unlock()
	s.hasher.Add(rel)
}

// hashConverted waits for git's ids of the queued files and returns them by
// path. A file that vanished meanwhile has no id: it is deleted.
func (s *scan) hashConverted(ctx context.Context) (map[string]record.Hash, error) {
	paths := s.hasher.Paths()
	ids, err := s.hasher.Wait()
	if len(paths) == 0 {
		return nil, nil
	}
	if err != nil {
		// One file gone fails the whole batch: hash them one by one.
		ids = make([]record.Hash, len(paths))
		for i, p := range paths {
			if ids[i], err = s.w.filters.HashPath(ctx, p, true); err != nil {
				var st fileStat
				if lerr := lstatPath(s.w.Abs(p), &st); lerr == nil && st.kind == kindFile {
					return nil, fmt.Errorf("record %s: %w", p, err)
				}
				ids[i] = record.ZeroHash // gone
			}
		}
	}
	s.w.db.AdoptLoose(ids)
	queued := make(map[string]convertedFile, len(s.converted))
	for _, c := range s.converted {
		queued[c.rel] = c
	}
	out := make(map[string]record.Hash, len(paths))
	for i, p := range paths {
		if ids[i].IsZero() {
			continue
		}
		out[p] = ids[i]
		// Cached only if the file is as it was when the walk saw it: git
		// read it afterwards.
		var st fileStat
		if c, ok := queued[p]; ok && c.cacheable && lstatPath(s.w.Abs(p), &st) == nil && keyOf(&st) == c.key {
			s.fresh[p] = cacheEntry{key: c.key, hash: ids[i], conv: c.conv, auto: c.auto}
		}
	}
	return out, nil
}
