package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/internal/undoafter"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// IndexNote is a path whose staged state still holds the agent's change
// after undo restored the file: undo never writes the index, so it says
// so and gives the git command that makes the index agree.
type IndexNote struct {
	Path string
	Fix  string // e.g. git restore --staged -- PATH
}

// tidyAfter removes the folders the agent created that the undo left
// empty, and lists the restored paths the index still disagrees with.
func (g *Guard) tidyAfter(ctx context.Context, run *patchstore.Run, targets []*patchstore.Call, res *UndoResult) {
	var written []record.Plan
	for _, it := range res.Items {
		if it.Written {
			written = append(written, it.Plan)
		}
	}
	t := &undoafter.Tidier{DB: g.db, WS: g.ws, Store: g.store}
	res.RemovedDirs = t.RemoveCreatedDirs(ctx, run, targets, written)
	for _, n := range t.IndexNotes(ctx, run, targets, written) {
		res.IndexNotes = append(res.IndexNotes, IndexNote{Path: n.Path, Fix: n.Fix})
	}
}
