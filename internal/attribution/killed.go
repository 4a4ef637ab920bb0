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

// A call whose process died (SIGKILL, a crash, a closed terminal, a turn
// the user interrupted) leaves a started entry and no finish. When resume
// finds it, or an event shows that it is over, it is marked uncertain and
// what changed from its start to the first evidence that it was over is
// attributed to it. Evidence is, in the order it can come:
//
//   - a later checkpoint of its run that is no ledger-only change (another
//     call's start or finish, a snapshot): its session was doing something
//     else (record.EvidenceCheckpoint);
//   - an event the caller saw (MarkKilled's evidence): a later hook event of
//     its session, a new session of the same agent in the work tree, the
//     exit of the agent gitguard wrapped; the checkpoint that marks the
//     call uncertain looks at the work tree then.
//
// What is attributed is read from the first checkpoint after the start
// that looked at each path (the next full snapshot; for a call with
// declared paths, the next checkpoint that captured the path), or from the
// work tree now. When that is the evidence itself, the change is the
// call's. When it is later than the evidence (the evidence looked at other
// paths only), the watch daemon's change times decide: a path that changed
// after the evidence is not the call's (it shows as changed outside any
// call), one that did not is. With no times, and when no evidence exists at
// all (resume is the first to look), the attribution is a guess: the
// patch keeps it with record.FilePatch.Guess set, status calls the path
// uncertain and undo leaves it unless forced, since it may be an edit the
// user made after the process died.
//
// The attribution is recorded once, in the checkpoint that marks the call
// uncertain, with the evidence (record.LedgerEntry.WindowEnd), and never
// recomputed: read-only commands (status, diff, log) then show it and undo
// reverts it like any call's patches, three-way merging whatever was
// edited after the window.
//
// Ending early is the safe side: later writes are reported as unrecorded,
// while ending late would hand the user's edits to the agent's call and
// undo would take them out. So the window ends at the first checkpoint
// that looked, even one a call running beside it took while it was still
// alive. Calls found started together are compared with each other as
// attribute compares finished calls: what one with declared paths recorded
// is taken out of a whole-workspace call's change.

// KilledChange is what resume attributes to one call found started.
type KilledChange struct {
	patches []record.FilePatch
	others  []record.FilePatch // changes other calls recorded meanwhile
	// through is the checkpoint that ended the window; 0 when the work
	// tree as resume found it did (the checkpoint resume writes).
	through int
	// end is the evidence that ended the window; Seq 0 when it is the
	// caller's (the checkpoint MarkKilled writes).
	end record.WindowEnd
	// dropped are the paths that changed in the window but after its
	// evidence, by the watch daemon's times: not the call's.
	dropped []string
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
	// ev is the caller's evidence that the calls are over now; nil when
	// there is none (resume found them).
	ev *record.WindowEnd
}

// KilledChanges computes what to attribute to each call of ids (calls of
// run found started), and the snapshot of the work tree taken for those
// whose window has no end yet (nil when none needed it). ev is the
// evidence that the calls are over now (an event the caller saw), nil when
// there is none.
func (a *Attributor) KilledChanges(ctx context.Context, run *patchstore.Run, ids []record.CallID, ev *record.WindowEnd) (map[record.CallID]*KilledChange, *workspace.Snapshot, error) {
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
	w := &killedWindow{run: run, entries: hist, batch: map[record.CallID]bool{}, declared: map[string][]record.FilePatch{}, ev: ev}
	for _, id := range ids {
		w.batch[id] = true
	}
	// Calls with declared paths first: what they wrote is theirs, and is
	// taken out of what the whole-workspace calls beside them saw.
	for _, id := range ids {
		if c := run.Calls[id]; c.Ledger.StartSeq > 0 && len(c.Ledger.Paths) > 0 {
			kc, err := a.killedPathChanges(ctx, w, c)
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
	kc := &KilledChange{end: a.evidence(w, c)}
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
	patches = a.bound(ctx, kc, patches, func(string) int { return kc.through })
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

// evidence returns the first evidence after c's start that it was over:
// a later checkpoint of its run that is no ledger-only change, else the
// caller's, else none (the window ends when resume looks: a guess).
func (a *Attributor) evidence(w *killedWindow, c *patchstore.Call) record.WindowEnd {
	for _, en := range w.entries {
		if cp := en.Checkpoint; cp.Seq > c.Ledger.StartSeq && cp.Kind != record.KindLedger {
			return record.WindowEnd{Kind: record.EvidenceCheckpoint, At: cp.CreatedAt, Seq: cp.Seq, What: describeCheckpoint(cp)}
		}
	}
	if w.ev != nil {
		ev := *w.ev
		ev.Seq = 0 // the checkpoint that marks the call uncertain
		return ev
	}
	return record.WindowEnd{Kind: record.EvidenceNone, At: a.Store.Time(), What: "nothing after its start; resume looked"}
}

// describeCheckpoint says, for people, what a checkpoint that ends a
// killed call's window recorded.
func describeCheckpoint(cp *record.Checkpoint) string {
	id := string(record.NewCheckpointID(cp.Seq))
	switch {
	case cp.Kind == record.KindCallStart && cp.CallID != "":
		return fmt.Sprintf("call %s started at %s", cp.CallID, id)
	case cp.Kind == record.KindCallFinish && cp.CallID != "":
		return fmt.Sprintf("call %s finished at %s", cp.CallID, id)
	case cp.Kind == record.KindRunFinish:
		return "the run finished at " + id
	case cp.Kind == record.KindRunStart:
		return "the run started again at " + id
	}
	return fmt.Sprintf("%s %s", cp.Kind, id)
}

// bound keeps, of a killed call's patches, the changes the evidence that
// ended its window bounds; marks those it does not bound as guesses; and
// leaves out (kc.dropped) those the watch daemon saw change after the
// evidence. readAt gives the checkpoint each path's end state was read
// from (0: the work tree now).
func (a *Attributor) bound(ctx context.Context, kc *KilledChange, patches []record.FilePatch, readAt func(path string) int) []record.FilePatch {
	ev := kc.end
	var later []string // paths whose end state was read after the evidence
	if ev.Bounded() {
		for _, p := range patches {
			if readAt(p.Path) != ev.Seq {
				later = append(later, p.Path)
			}
		}
	}
	var times workspace.ChangeTimes
	if len(later) > 0 {
		ct, err := a.WS.ChangeTimes(ctx, later)
		if err != nil {
			a.Log.Debug("no change times from the watch daemon", "err", err)
		} else {
			times = ct
		}
	}
	out := patches[:0]
	for _, p := range patches {
		switch {
		case !ev.Bounded():
			p.Guess = "nothing shows when the call's process stopped: the change may have been made after it did"
		case readAt(p.Path) == ev.Seq:
			// The evidence looked at the path: the change is inside the window.
		case times.Known(ev.At):
			if t, ok := times.At[p.Path]; ok && t.After(ev.At) {
				kc.dropped = append(kc.dropped, p.Path)
				continue
			}
		default:
			p.Guess = fmt.Sprintf("the first sign that the call was over (%s) did not look at this path, and no watch daemon vouched for when it changed", ev.What)
		}
		out = append(out, p)
	}
	return out
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
func (a *Attributor) killedPathChanges(ctx context.Context, w *killedWindow, c *patchstore.Call) (*KilledChange, error) {
	kc := &KilledChange{end: a.evidence(w, c)}
	usedNow := false
	readAt := map[string]int{}
	var patches []record.FilePatch
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
		readAt[b.Path] = seq
		patches = append(patches, fp)
	}
	if usedNow {
		kc.through = 0
	}
	kc.patches = a.bound(ctx, kc, patches, func(p string) int { return readAt[p] })
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

// AttributeKilled records, in the checkpoint (number seq) that marks it
// uncertain, what is attributed to a call found started, and the evidence
// that ended its window; its UncertainReason, which says how it was found,
// is completed with what it is given.
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
	end := kc.end
	if end.Seq == 0 {
		end.Seq = seq
	}
	c.Ledger.WindowEnd = &end
	reason := fmt.Sprintf("%s; what changed from its start (%s) to %s is attributed to it",
		c.Ledger.UncertainReason, record.NewCheckpointID(c.Ledger.StartSeq), record.NewCheckpointID(through))
	if end.Bounded() {
		reason += fmt.Sprintf(" (the first sign that it was over: %s)", end.What)
	} else {
		reason += " (nothing shows when it stopped: that is a guess, and undo leaves those changes unless forced)"
	}
	if len(kc.dropped) > 0 {
		reason += fmt.Sprintf("; %d path(s) changed after that are not", len(kc.dropped))
	}
	c.Ledger.UncertainReason = reason
}

// MarkKilled marks the calls stale of run uncertain (their process is gone)
// and records what changed in their windows as theirs, in one checkpoint:
// a snapshot when some window ended only now, a ledger change otherwise.
// ev is the evidence that they are over now (a later event of their
// session, a new session, the wrapped agent's exit), nil when resume found
// them and nothing but its look ends their windows. Calls of stale not
// started (finished meanwhile) are left as they are.
func (a *Attributor) MarkKilled(ctx context.Context, run *patchstore.Run, stale []record.CallID, ev *record.WindowEnd) (*patchstore.Run, error) {
	// Attribution compares the killed calls with every other call of the
	// run: a rare path, so it reads them all.
	if err := a.Store.LoadAll(run); err != nil {
		return nil, err
	}
	changes, snap, err := a.KilledChanges(ctx, run, stale, ev)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		// Marking them uncertain matters more: what they changed then
		// shows as changed outside any call, not as nobody's loss.
		a.Log.Warn("changes of calls found started not attributed to them", "err", err)
		changes, snap = nil, nil
	}
	label := "resume: started calls marked uncertain"
	reason := "found started at resume: the process running it stopped before recording its end"
	if ev != nil {
		label = "started calls closed as uncertain: " + ev.What
		reason = "its process stopped before recording its end, and then " + ev.What
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
			c.Ledger.UncertainReason = reason
			AttributeKilled(c, changes[cid], seq)
		}
		if snap != nil {
			cp := filepatch.Checkpoint(snap, record.KindSnapshot)
			cp.Label, cp.StepID = label, tip.Checkpoint.StepID
			return cp, nil
		}
		return &record.Checkpoint{Kind: record.KindLedger, Label: label, StepID: tip.Checkpoint.StepID}, nil
	})
}
