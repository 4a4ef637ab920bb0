package workspace

import (
	"bytes"
	"context"
	"strconv"
)

// git add on a conflicted path records the stages it replaced in the
// index's resolve-undo extension (REUC), from which
// `git update-index --unresolve PATH` brings the conflict back. gitguard
// only reads it, to tell the user that command after an undo put a
// conflict's markers back in a file the agent had resolved and staged.

// parseResolveUndo returns the paths of a REUC extension: each is the
// path, NUL, three NUL-terminated octal modes (0 for a missing stage) and
// the 20-byte ids of the stages present. A malformed extension yields the
// paths read before the damage.
func parseResolveUndo(ext []byte) map[string]bool {
	out := map[string]bool{}
	for len(ext) > 0 {
		nul := bytes.IndexByte(ext, 0)
		if nul < 0 {
			return out
		}
		path := string(ext[:nul])
		ext = ext[nul+1:]
		present := 0
		for i := 0; i < 3; i++ {
			nul := bytes.IndexByte(ext, 0)
			if nul < 0 {
				return out
			}
			mode, err := strconv.ParseUint(string(ext[:nul]), 8, 32)
			if err != nil {
				return out
			}
			if mode != 0 {
				present++
			}
			ext = ext[nul+1:]
		}
		if len(ext) < present*20 {
			return out
		}
		ext = ext[present*20:]
		out[path] = true
	}
	return out
}

// Unresolvable returns the paths whose conflict git add resolved and the
// index still remembers (git update-index --unresolve brings the stages
// back). It reads the index and never writes it; an index gitguard reads
// through git ls-files (a split index) gives none.
func (w *Workspace) Unresolvable(ctx context.Context) (map[string]bool, error) {
	idx, err := w.ReadIndex(ctx)
	if err != nil {
		return nil, err
	}
	return idx.resolveUndo, nil
}
