package attribution

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gitguard/gitguard/internal/callstate"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// Attribute splits a whole-workspace call's patches by what other calls of
// this work tree (of any run) recorded while it ran. It returns the call's
// own patches and the changes other calls made (OwnedBy set).
//
//   - A finished call that declared the path (an edit tool, an undo) and
//     recorded before and after states that chain into the change explains
//     its part exactly: that part is its own, and what is left is this
//     call's. A change explained whole leaves the patch.
//   - What is left is shared with every whole-workspace call whose window
//     overlapped this one's and that recorded the path too, and with every
//     call still open that may yet write it (whole-workspace, or declaring
//     the path), unless the open call's start already held the result or
//     the watch daemon saw the last change before it started.
func (a *Attributor) Attribute(ctx context.Context, self record.CallRef, e *record.LedgerEntry, patches []record.FilePatch) ([]record.FilePatch, []record.FilePatch, error) {
	return a.attributeWindow(ctx, self, e, patches, nil)
}

// attributeWindow is attribute for a window that ended before now (a call
// whose process died): the peers for which after is true started after it
// and are left out.
func (a *Attributor) attributeWindow(ctx context.Context, self record.CallRef, e *record.LedgerEntry, patches []record.FilePatch, after func(peerCall) bool) ([]record.FilePatch, []record.FilePatch, error) {
	if len(patches) == 0 || e.StartedAt == nil {
		return patches, nil, nil
	}
	peers, err := a.peerCalls(ctx, self, *e.StartedAt)
	if err != nil {
		return nil, nil, fmt.Errorf("read the calls that ran beside %s: %w", self.Call, err)
	}
	if after != nil {
		peers = slices.DeleteFunc(peers, after)
	}
	if len(peers) == 0 {
		return patches, nil, nil
	}
	times := a.changeTimes(ctx, peers, patches)
	var own, others []record.FilePatch
	for _, p := range patches {
		before, after := p.Before(), p.After()
		// Take out, from either end, the parts other calls recorded exactly.
		used := map[int]bool{}
		for progress := true; progress && before != after; {
			progress = false
			for i, q := range peers {
				qp := q.patch(p.Path)
				// Only a call that finished after this one started can have
				// written inside its window.
				if used[i] || qp == nil || q.open() || q.wholeWorkspace() || qp.Before() == qp.After() || q.finished().Before(*e.StartedAt) {
					continue
				}
				switch {
				case qp.Before() == before:
					before = qp.After()
				case qp.After() == after:
					after = qp.Before()
				default:
					continue
				}
				used[i], progress = true, true
				others = append(others, record.FilePatch{Path: p.Path, BeforeHash: qp.BeforeHash, BeforeMode: qp.BeforeMode,
					AfterHash: qp.AfterHash, AfterMode: qp.AfterMode, Binary: qp.Binary, Oversize: qp.Oversize,
					ToolCallID: self.Call, CreatedAt: p.CreatedAt, OwnedBy: &record.CallRef{Run: q.ref.Run, Call: q.ref.Call}})
			}
		}
		if before == after {
			continue // every part of the change is another call's
		}
		np := p
		if before != p.Before() || after != p.After() {
			if np, err = a.Patches.Make(self.Call, p.Path, before, after, p.Oversize); err != nil {
				return nil, nil, err
			}
		}
		for i, q := range peers {
			if !used[i] && a.mayHaveMade(q, *e.StartedAt, &np, times) {
				np.SharedWith = append(np.SharedWith, q.ref)
			}
		}
		own = append(own, np)
	}
	return own, others, nil
}

// patch returns the call's own patch of path, or nil.
func (p peerCall) patch(path string) *record.FilePatch {
	for i := range p.c.Patches {
		if p.c.Patches[i].Path == path {
			return &p.c.Patches[i]
		}
	}
	return nil
}

// mayHaveMade reports whether peer q may have made the change np records.
// start is when this call started.
func (a *Attributor) mayHaveMade(q peerCall, start time.Time, np *record.FilePatch, times workspace.ChangeTimes) bool {
	if !q.open() {
		// Its records are complete: it changed the path in its window, which
		// overlapped this one's, or it did not touch the path at all.
		return q.wholeWorkspace() && !q.finished().Before(start) && q.patch(np.Path) != nil
	}
	var startState record.State
	known := false
	switch {
	case q.wholeWorkspace():
		if !np.Oversize {
			if fs, err := a.DB.Lookup(q.c.Ledger.BeforeTree, np.Path); err == nil {
				startState, known = fs.State(), true
			}
		}
	case slices.Contains(q.c.Ledger.Paths, np.Path):
		for _, b := range q.c.Before {
			if b.Path == np.Path {
				startState, known = b.State, true
			}
		}
	default:
		return false // it may write only the paths it declared
	}
	if known && startState == np.After() {
		return false // the change was in place before it started
	}
	if t, ok := times.At[np.Path]; ok && times.Known(q.started()) && t.Before(q.started()) {
		return false // the watch daemon saw the last change before it started
	}
	return true
}

// changeTimes asks the watch daemon when the patched paths last changed,
// when some peer is still open (only then do times decide anything). No
// daemon, or one that cannot vouch, gives no times.
func (a *Attributor) changeTimes(ctx context.Context, peers []peerCall, patches []record.FilePatch) workspace.ChangeTimes {
	if !slices.ContainsFunc(peers, func(q peerCall) bool { return q.open() }) {
		return workspace.ChangeTimes{}
	}
	paths := make([]string, len(patches))
	for i := range patches {
		paths[i] = patches[i].Path
	}
	ct, err := a.WS.ChangeTimes(ctx, paths)
	if err != nil {
		a.Log.Debug("no change times from the watch daemon", "err", err)
		return workspace.ChangeTimes{}
	}
	return ct
}

// Finished captures what started call c of run changed, for its finish:
// nothing for a call recorded in the ledger only; for declared paths
// their after states and patches; for a whole-workspace call the patches
// between its start and a snapshot now, with the changes calls of other
// runs made meanwhile taken out as Others (see Attribute).
func (a *Attributor) Finished(ctx context.Context, run *patchstore.Run, c *patchstore.Call, callID record.CallID) (callstate.Finish, error) {
	var f callstate.Finish
	var err error
	switch {
	case len(c.Ledger.Paths) == 0 && c.Ledger.BeforeTree.IsZero():
		f.LedgerOnly = true
	case len(c.Ledger.Paths) > 0:
		f.Patches, f.States, err = callstate.PathPatches(a.Patches, c, callID, c.Ledger.Paths)
	default:
		if f.Snap, err = a.WS.Snapshot(ctx); err != nil {
			return f, err
		}
		if f.Patches, err = a.Patches.Tree(ctx, callID, c.Ledger, run, f.Snap); err != nil {
			return f, err
		}
		f.Patches, f.Others, err = a.Attribute(ctx, record.CallRef{Run: run.ID, Call: callID}, &c.Ledger, f.Patches)
	}
	return f, err
}
