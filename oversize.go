package gitguard

import (
	"fmt"

	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/internal/ospath"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// markUnrecoverable turns an applied path whose patch undo cannot revert
// (content over the size limit, recorded by hash only: see
// conflict.OversizeLoss) into an Unrecoverable one with the reason, so that
// status says what undo will say instead of calling it applied.
func (g *Guard) markUnrecoverable(ps *PathStatus, fp *record.FilePatch) {
	if ps.State != conflict.Applied {
		return
	}
	if why := conflict.OversizeLoss(fp, g.db.Has); why != "" {
		ps.State, ps.Reason = conflict.Irrecoverable, why
	}
}

// unreadableHere is the status of a recorded path this system cannot hold
// (on Windows: a backslash, a ':' or a device name in it), which is left
// unread: looking it up would read another file. ok is false for every
// path this system can hold.
func (g *Guard) unreadableHere(run *patchstore.Run, fp *record.FilePatch) (ps PathStatus, ok bool) {
	err := ospath.Host().CheckName(fp.Path)
	if err == nil {
		return PathStatus{}, false
	}
	c := run.Calls[fp.ToolCallID]
	return PathStatus{Path: fp.Path, Call: fp.ToolCallID, Tool: c.Ledger.ToolName, Before: fp.Before(), After: fp.After(),
		Oversize: fp.Oversize, State: conflict.Conflicted, UndoneBy: c.Ledger.UndoneBy,
		Reason: fmt.Sprintf("cannot be looked at on this system: %v", err)}, true
}

// MaxFileSize is the size limit in bytes: files larger are recorded by
// hash, size and mode only, and undo reports them unrecoverable.
func (g *Guard) MaxFileSize() int64 { return g.ws.MaxFileSize() }
