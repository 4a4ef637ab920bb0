// Package safewrite writes recorded file states into the work tree, for
// undo and redo, and refuses the writes a hostile record could ask for.
// Apply carries out an undo plan, path by path.
//
// Invariants: a file is written to a temporary file in its folder, synced
// and renamed into place, so a crash leaves the old or the new content,
// never a mix; nothing is written through a symlink (a parent folder that
// is a link is refused, and so is a path beneath a link the same plan
// creates or leaves in place); a symlink is created whatever its target
// (outside the work tree, absolute, looping), as git checks links out:
// creating a link is not writing through it; a folder is removed only when
// it holds nothing but folders, never through a link; content git converts
// (line endings, filters) is turned into work-tree bytes by git; a path
// that changed since it was planned is left as it is, never overwritten.
package safewrite

import (
	"path/filepath"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/workspace"
)

// Writer writes into one work tree. It is safe for concurrent use on
// different paths.
type Writer struct {
	DB       *odb.DB              // receives blobs git smudges from
	WS       *workspace.Workspace // settings: symlinks, conversions, parent checks
	WorkTree string               // the top of the work tree
}

// abs is the file name of path, a slash-separated path from the top.
func (w *Writer) abs(path string) string {
	return filepath.Join(w.WorkTree, filepath.FromSlash(path))
}
