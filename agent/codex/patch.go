package codex

import "strings"

// Markers of the apply_patch format that name a file.
var patchMarkers = []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "}

// PatchPaths returns the files an apply_patch patch writes, in order of
// first mention, each once: the files it adds, updates and deletes, and
// the new name of each file it moves (the old name is among the updated
// ones). Markers count only at the start of a line, where the format puts
// them; a hunk line always starts with ' ', '+' or '-'. ok is false when
// the text names no file (not a patch).
func PatchPaths(patch string) (paths []string, ok bool) {
	seen := map[string]bool{}
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimSuffix(line, "\r")
		for _, m := range patchMarkers {
			p, found := strings.CutPrefix(line, m)
			if !found {
				continue
			}
			p = strings.TrimSpace(p)
			if p != "" && !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
			break
		}
	}
	return paths, len(paths) > 0
}
