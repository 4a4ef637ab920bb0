// Package attribution tells which tool call made a change when several
// runs (agent sessions) of one work tree ran at once, and what a call whose
// process died changed.
//
// It reads the records of every run of the work tree (their newest
// checkpoints, and only the calls whose windows overlap the one asked
// about) and returns patches; it writes patch blobs through
// filepatch.Maker and never a ref or a record: the use cases in the root
// package commit what it returns. The one exception is closing calls whose
// process died (MarkKilled, CloseOpen): that commits one checkpoint of the
// calls' own run, marking them uncertain with what they changed.
//
// Invariants: a change is given to a call only on evidence (its recorded
// before and after states chain into the change, or its window and paths
// allow it); a change that more than one call may have made is shared,
// never given to one of them, so that undo leaves it alone; a damaged run
// is left out with a warning and never stops other runs' calls from being
// recorded. A call whose process died is given what changed from its start
// to the first evidence that it was over (see killed.go); where no evidence
// bounds that, the change is kept as a guess (record.FilePatch.Guess),
// which undo leaves unless forced.
package attribution

import (
	"log/slog"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/filepatch"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/workspace"
)

// Attributor reads the runs of one work tree to attribute changes. It is
// not safe for concurrent use; build one per operation.
type Attributor struct {
	DB      *odb.DB
	Store   *patchstore.Store
	Refs    *gitrefs.Store
	WS      *workspace.Workspace // asked for change times, and snapshotted for a window with no end yet
	Log     *slog.Logger
	Patches *filepatch.Maker
}
