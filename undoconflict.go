package gitguard

import (
	"bytes"
	"strings"

	"github.com/gitguard/gitguard/internal/odb"
)

// An agent that resolves a conflict often stages the result (git add)
// inside the same call. Undoing that call puts the conflict's markers back
// in the file, but the index still says "resolved": git would commit the
// markers. git remembers what git add resolved (the index's resolve-undo
// record), so the fix is `git update-index --unresolve PATH`, which brings
// the stages back and leaves the file alone; `git restore --staged` would
// stage HEAD's version and lose the conflict.

// unresolveFix returns that command for an undone path whose restored
// content holds conflict markers and whose conflict the index remembers;
// "" otherwise.
func (g *Guard) unresolveFix(unresolvable map[string]bool, it UndoItem) string {
	if !unresolvable[it.Path] || !it.Target.Mode.IsFile() {
		return ""
	}
	content := it.Content
	if content == nil {
		data, err := g.db.ReadAs(it.Target.Hash, odb.TypeBlob)
		if err != nil {
			return ""
		}
		content = data
	}
	if !hasConflictMarkers(content) {
		return ""
	}
	arg := it.Path
	if strings.HasPrefix(arg, "-") {
		arg = "./" + arg // update-index takes no "--" before its paths
	}
	return "git update-index --unresolve " + quoteArg(arg)
}

// hasConflictMarkers reports whether data has a line opening a conflict
// ("<<<<<<< ") and a line closing one (">>>>>>> "), as git writes them.
func hasConflictMarkers(data []byte) bool {
	open := bytes.HasPrefix(data, []byte("<<<<<<< ")) || bytes.Contains(data, []byte("\n<<<<<<< "))
	return open && bytes.Contains(data, []byte("\n>>>>>>> "))
}
