package workspace

import (
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitguard/gitguard/internal/odb"
)

// packStamp stamps the pack folder objects/pack for the watcher (see
// stampedFiles) by the packs that git, not gitguard, wrote, and by the
// marker gitguard's prune touches after it rewrote its own packs without
// unreachable objects. gitguard stores every checkpoint as a pack and
// merges its own packs, keeping every object: neither may cost the
// daemon's next answer a walk. The packs gitguard wrote are listed in
// <common dir>/gitguard/packs (see internal/odb).
func packStamp(dir string) fileStamp {
	common := filepath.Dir(filepath.Dir(dir))
	own := odb.ListedPacks(common)
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return fileStamp{path: dir}
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, "tmp_") || own[strings.TrimSuffix(name, filepath.Ext(name))] {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	h := fnv.New64a()
	for _, n := range names {
		h.Write([]byte(n + "\n"))
	}
	s := fileStamp{path: dir, ok: true}
	s.key.Size = int64(h.Sum64())
	if pruned := stamp(filepath.Join(common, "gitguard", "packs.pruned")); pruned.ok {
		s.key.MtimeNs, s.key.CtimeNs, s.key.Ino = pruned.key.MtimeNs, pruned.key.CtimeNs, pruned.key.Ino
	}
	return s
}
