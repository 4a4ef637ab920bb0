package attribution

import (
	"context"
	"fmt"
	"slices"

	"github.com/gitguard/gitguard/internal/filepatch"
	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// A call whose process died (SIGKILL, a crash, a closed terminal) leaves a
// started entry and no finish. When resume finds it, it marks it uncertain
// and attributes to it what changed between its start and the next
// checkpoint that looked at what it could change: for a whole-workspace
// call the next full snapshot of the run (a later call's start, a
// snapshot), for a call with declared paths the next checkpoint that
// captured each path. When no such checkpoint exists the work tree is
// looked at now, and the checkpoint resume writes ends the window.
//
// The attribution is recorded once, in the checkpoint that marks the call
// uncertain, and never recomputed: read-only commands (status, diff, log)
// then show it and undo reverts it like any call's patches, three-way
// merging whatever was edited after the window. Changes made after the
// process died and before the window ended cannot be told apart from the
// call's and are attributed to it; the brief says so.
//
// The records cannot tell when the process died. The window ends at the
// first checkpoint that looked, even one a call running beside it took
// while it was still alive: ending early leaves later writes reported as
// unrecorded, ending late would hand the user's edits to the agent's call
// and undo would take them out. Calls found started together are compared
// with each other as attribute compares finished calls: what one with
// declared paths recorded is taken out of a whole-workspace call's change.

// KilledChange is what resume attributes to one call found started.
type KilledChange struct {
	patches []record.FilePatch
	others  []record.FilePatch // changes other calls recorded meanwhile
	// through is the checkpoint that ended the window; 0 when the work
	// tree as resume found it did (the checkpoint resume writes).
	through int
}

// killedWindow is the part of a run's history after the oldest start of
// the calls found started, oldest first.
type killedWindow struct {
	run     *patchstore.Run
	entries []patchstore.Entry
	now     *workspace.Snapshot // taken once, when some call needs it
	// batch names the calls found started together; declared holds the
	// patches attributed to those of them with declared paths, by path.
	batch    map[record.CallID]bool
	declared map[string][]record.FilePatch
}

// KilledChanges computes what to attribute to each call of ids (calls of
// run found started), and the snapshot of the work tree taken for those
// whose window has no end yet (nil when none needed it).
func (a *Attributor) KilledChanges(ctx context.Context, run *patchstore.Run, ids []record.CallID) (map[record.CallID]*KilledChange, *workspace.Snapshot, error) {
	oldest := 0
	for _, id := range ids {
		if s := run.Calls[id].Ledger.StartSeq; s > 0 && (oldest == 0 || s < oldest) {
			oldest = s
		}
	}
	out := map[record.CallID]*KilledChange{}
	if oldest == 0 {
		return out, nil, nil
	}
	hist, err := a.Store.History(ctx, run.ID, run.Checkpoint.Seq-oldest+1)
	if err != nil {
		return nil, nil, fmt.Errorf("read the checkpoints since call %s started: %w", ids[0], err)
	}
	slices.Reverse(hist)
	w := &killedWindow{run: run, entries: hist, batch: map[record.CallID]bool{}, declared: map[string][]record.FilePatch{}}
	for _, id := range ids {
		w.batch[id] = true
	}
	// Calls with declared paths first: what they wrote is theirs, and is
	// taken out of what the whole-workspace calls beside them saw.
	for _, id := range ids {
		if c := run.Calls[id]; c.Ledger.StartSeq > 0 && len(c.Ledger.Paths) > 0 {
			kc, err := a.killedPathChanges(w, c)
			if err != nil {
				return nil, nil, fmt.Errorf("attribute the changes of call %s: %w", id, err)
			}
			out[id] = kc
			for _, p := range kc.patches {
				w.declared[p.Path] = append(w.declared[p.Path], p)
			}
		}
	}
	for _, id := range ids {
		if c := run.Calls[id]; c.Ledger.StartSeq > 0 && len(c.Ledger.Paths) == 0 && !c.Ledger.BeforeTree.IsZero() {
			kc, err := a.killedTreeChanges(ctx, w, c)
			if err != nil {
				return nil, nil, fmt.Errorf("attribute the changes of call %s: %w", id, err)
			}
			out[id] = kc
		}
	}
	return out, w.now, nil
}

// snapshotNow returns the work tree now, snapshotting it once.
func (a *Attributor) snapshotNow(ctx context.Context, w *killedWindow) (*workspace.Snapshot, error) {
	if w.now == nil {
		snap, err := a.WS.Snapshot(ctx)
		if err != nil {
			return nil, err
		}
		w.now = snap
	}
	return w.now, nil
}

// killedTreeChanges diffs a whole-workspace call's start against the next
// full snapshot of the run, or the work tree now.
func (a *Attributor) killedTreeChanges(ctx context.Context, w *killedWindow, c *patchstore.Call) (*KilledChange, error) {
	kc := &KilledChange{}
	var end *workspace.Snapshot
	endAt := a.Store.Time()
	for _, en := range w.entries {
		cp := en.Checkpoint
		if cp.Seq > c.Ledger.StartSeq && cp.Kind != record.KindLedger && !cp.Partial && !cp.WorktreeTree.IsZero() {
			end = &workspace.Snapshot{Worktree: cp.WorktreeTree, Oversize: cp.Oversize, Skipped: cp.Skipped}
			kc.through, endAt = cp.Seq, cp.CreatedAt
			break
		}
	}
	if end == nil {
		var err error
		if end, err = a.snapshotNow(ctx, w); err != nil {
			return nil, err
		}
	}
	id := c.Ledger.CallID
	patches, err := a.Patches.Tree(ctx, id, c.Ledger, w.run, end)
	if err != nil {
		return nil, err
	}
	// Calls that started after the window ended wrote nothing inside it;
	// the calls found started with this one are compared below.
	skip := func(q peerCall) bool {
		if q.ref.Run == w.run.ID && w.batch[q.ref.Call] {
			return true
		}
		if q.ref.Run == w.run.ID && kc.through > 0 {
			return q.c.Ledger.StartSeq >= kc.through
		}
		return q.started().After(endAt)
	}
	self := record.CallRef{Run: w.run.ID, Call: id}
	if patches, kc.others, err = a.takeOutDeclared(self, patches, w.declared); err != nil {
		return nil, err
	}
	own, others, err := a.attributeWindow(ctx, self, &c.Ledger, patches, skip)
	kc.patches, kc.others = own, append(kc.others, others...)
	return kc, err
}

// takeOutDeclared removes from a whole-workspace call's patches the parts
// that killed calls with declared paths recorded exactly (their before or
// after state chains into the change), as attribute does for finished
// calls; those parts are returned as others, owned by their calls.
func (a *Attributor) takeOutDeclared(self record.CallRef, patches []record.FilePatch, declared map[string][]record.FilePatch) ([]record.FilePatch, []record.FilePatch, error) {
	var own, others []record.FilePatch
	for _, p := range patches {
		before, after := p.Before(), p.After()
		for _, q := range declared[p.Path] {
			if before == after {
				break
			}
			switch {
			case q.Before() == before:
				before = q.After()
			case q.After() == after:
				after = q.Before()
			default:
				continue
			}
			o := q
			o.ToolCallID, o.OwnedBy, o.SharedWith = self.Call, &record.CallRef{Run: self.Run, Call: q.ToolCallID}, nil
			others = append(others, o)
		}
		if before == after {
			continue // all of it was theirs
		}
		if before != p.Before() || after != p.After() {
			np, err := a.Patches.Make(self.Call, p.Path, before, after, p.Oversize)
			if err != nil {
				return nil, nil, err
			}
			p = np
		}
		own = append(own, p)
	}
	return own, others, nil
}

// killedPathChanges compares each declared path's before state with the
// first later checkpoint that captured the path (a full snapshot, or a
// call declaring it), or with the file now.
func (a *Attributor) killedPathChanges(w *killedWindow, c *patchstore.Call) (*KilledChange, error) {
	kc := &KilledChange{}
	usedNow := false
	for _, b := range c.Before {
		end, oversize, seq, err := a.pathAtWindowEnd(w, c, b.Path)
		if err != nil {
			return nil, err
		}
		if seq == 0 {
			usedNow = true
			now, err := a.Patches.Capture([]string{b.Path})
			if err != nil {
				return nil, err
			}
			end, oversize = now[0].State, now[0].Oversize
		}
		kc.through = max(kc.through, seq)
		if end == b.State {
			continue
		}
		fp, err := a.Patches.Make(c.Ledger.CallID, b.Path, b.State, end, b.Oversize || oversize)
		if err != nil {
			return nil, err
		}
		kc.patches = append(kc.patches, fp)
	}
	if usedNow {
		kc.through = 0
	}
	return kc, nil
}

// pathAtWindowEnd returns path's state in the first checkpoint after c's
// start that captured it, and that checkpoint's number; 0 when none did.
func (a *Attributor) pathAtWindowEnd(w *killedWindow, c *patchstore.Call, path string) (record.State, bool, int, error) {
	for _, en := range w.entries {
		cp := en.Checkpoint
		if cp.Seq <= c.Ledger.StartSeq || cp.Kind == record.KindLedger || cp.CallID == c.Ledger.CallID || cp.WorktreeTree.IsZero() {
			continue
		}
		if cp.Partial {
			q := w.run.Calls[cp.CallID]
			if q == nil || !slices.Contains(q.Ledger.Paths, path) {
				continue
			}
		}
		for _, o := range cp.Oversize {
			if o.Path == path {
				return o.State(), true, cp.Seq, nil
			}
		}
		fs, err := a.DB.Lookup(cp.WorktreeTree, path)
		if err != nil {
			return record.State{}, false, 0, err
		}
		return fs.State(), false, cp.Seq, nil
	}
	return record.State{}, false, 0, nil
}

// AttributeKilled records, in the checkpoint that marks it uncertain, what
// is attributed to a call found started.
func AttributeKilled(c *patchstore.Call, kc *KilledChange, seq int) {
	if kc == nil {
		return
	}
	through := kc.through
	if through == 0 {
		through = seq
	}
	c.Patches, c.Others = kc.patches, kc.others
	c.Ledger.Patches = len(kc.patches)
	c.Ledger.ChangesThrough = through
	// Its patches are as of that checkpoint: they order after the calls
	// finished before it and before those finished later.
	c.Ledger.FinishSeq = through
	c.Ledger.UncertainReason = fmt.Sprintf("found started at resume: the process running it stopped before recording its end; "+
		"what changed from its start (%s) to %s is attributed to it", record.NewCheckpointID(c.Ledger.StartSeq), record.NewCheckpointID(through))
}

// MarkKilled marks the calls of run found started uncertain (their
// process is gone) and records what changed in their windows as theirs,
// in one checkpoint: a snapshot when some window ended only now, a ledger
// change otherwise.
func (a *Attributor) MarkKilled(ctx context.Context, run *patchstore.Run, stale []record.CallID) (*patchstore.Run, error) {
	// Attribution compares the killed calls with every other call of the
	// run: a rare path, so it reads them all.
	if err := a.Store.LoadAll(run); err != nil {
		return nil, err
	}
	changes, snap, err := a.KilledChanges(ctx, run, stale)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		// Marking them uncertain matters more: what they changed then
		// shows as changed outside any call, not as nobody's loss.
		a.Log.Warn("changes of calls found started not attributed to them", "err", err)
		changes, snap = nil, nil
	}
	return a.Store.Commit(ctx, run.ID, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		seq := runread.NextSeq(tip)
		for _, cid := range stale {
			c := tip.Calls[cid]
			if c == nil || c.Ledger.Status != record.StatusStarted {
				continue
			}
			c.Touch()
			c.Ledger.Status = record.StatusUncertain
			c.Ledger.UncertainReason = "found started at resume: the process running it stopped before recording its end"
			AttributeKilled(c, changes[cid], seq)
		}
		label := "resume: started calls marked uncertain"
		if snap != nil {
			cp := filepatch.Checkpoint(snap, record.KindSnapshot)
			cp.Label, cp.StepID = label, tip.Checkpoint.StepID
			return cp, nil
		}
		return &record.Checkpoint{Kind: record.KindLedger, Label: label, StepID: tip.Checkpoint.StepID}, nil
	})
}
