package gitguard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// capture records the current state of each path, storing blobs.
func (g *Guard) capture(paths []string) ([]record.PathState, error) {
	out := make([]record.PathState, 0, len(paths))
	for _, p := range paths {
		fs, oversize, err := g.ws.Capture(p, true)
		if err != nil {
			return nil, err
		}
		if fs.Mode == record.ModeTree {
			fs.Mode, fs.Hash = record.ModeNone, record.ZeroHash // a folder is no file
		}
		out = append(out, record.PathState{Path: p, State: record.State{Mode: fs.Mode, Hash: fs.Hash}, Oversize: oversize})
	}
	return out, nil
}

// overlayStates writes captured states over a base work tree; oversize
// files are left out, as a full snapshot leaves them out.
func (g *Guard) overlayStates(base record.Hash, states []record.PathState) (record.Hash, []record.FileState, error) {
	var fs []record.FileState
	var over []record.FileState
	for _, s := range states {
		if s.Oversize {
			over = append(over, record.FileState{Path: s.Path, Mode: s.Mode, Hash: s.Hash})
			fs = append(fs, record.FileState{Path: s.Path})
			continue
		}
		fs = append(fs, record.FileState{Path: s.Path, Mode: s.Mode, Hash: s.Hash})
	}
	h, err := g.db.Overlay(base, fs)
	return h, over, err
}

// CaptureBefore adds paths to a started call, recording their current
// state as the call's before state. An agent runtime calls it just before
// writing a file the call did not declare at start.
func (g *Guard) CaptureBefore(ctx context.Context, runID record.RunID, callID record.CallID, paths ...string) (*patchstore.Run, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	id, err := g.ResolveRun(ctx, runID, false)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		if err := record.ValidatePath(p); err != nil {
			return nil, err
		}
	}
	if tip, err := g.store.ReadRunCalls(ctx, id); err == nil {
		if err := g.useRunSettings(ctx, tip.Checkpoint); err != nil {
			return nil, err
		}
	}
	states, err := g.capture(paths)
	if err != nil {
		return nil, err
	}
	return g.store.CommitCalls(ctx, id, []record.CallID{callID}, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		c, err := startedCall(tip, callID)
		if err != nil {
			return nil, err
		}
		if len(c.Ledger.Paths) == 0 && len(c.Before) == 0 && !c.Ledger.BeforeTree.IsZero() {
			return nil, fmt.Errorf("call %s captures the whole workspace already: %w", callID, ErrCallState)
		}
		c.Touch()
		have := map[string]bool{}
		for _, b := range c.Before {
			have[b.Path] = true
		}
		var added []record.PathState
		for _, s := range states {
			if !have[s.Path] {
				c.Before = append(c.Before, s)
				c.Ledger.Paths = append(c.Ledger.Paths, s.Path)
				added = append(added, s)
			}
		}
		wt, over, err := g.overlayStates(tip.Checkpoint.WorktreeTree, added)
		if err != nil {
			return nil, err
		}
		return &record.Checkpoint{Kind: record.KindCallStart, CallID: callID, WorktreeTree: wt, Partial: true,
			Oversize: over, IndexTree: tip.Checkpoint.IndexTree, Unmerged: tip.Checkpoint.Unmerged, Head: tip.Checkpoint.Head,
			StepID: tip.Checkpoint.StepID}, nil
	})
}

// readStartedCall reads the run (the active one when runID is empty) with
// the records of the started call callID only, and that call.
func (g *Guard) readStartedCall(ctx context.Context, runID record.RunID, callID record.CallID) (*patchstore.Run, *patchstore.Call, error) {
	id, err := g.ResolveRun(ctx, runID, false)
	if err != nil {
		return nil, nil, err
	}
	run, err := g.store.ReadRunCalls(ctx, id, callID)
	if err != nil {
		return nil, nil, err
	}
	c, err := startedCall(run, callID)
	return run, c, err
}

func startedCall(tip *patchstore.Run, callID record.CallID) (*patchstore.Call, error) {
	c := tip.Calls[callID]
	if c == nil {
		return nil, fmt.Errorf("call %q in run %s: %w", callID, tip.ID, patchstore.ErrUnknownCall)
	}
	switch c.Ledger.Status {
	case record.StatusStarted:
	case record.StatusUncertain:
		// A resume found it started and its process gone; the process was
		// only slow. Its own report of how it ended is better evidence.
		if c.Ledger.FinishedAt == nil {
			break
		}
		fallthrough
	default:
		return nil, fmt.Errorf("call %s is %s, not started: %w", callID, c.Ledger.Status, ErrCallState)
	}
	return c, nil
}

// CaptureAfter records the after state of paths of a started call now,
// making their patches durable before the call finishes. CallFinish
// captures every declared path again, so calling it is optional.
func (g *Guard) CaptureAfter(ctx context.Context, runID record.RunID, callID record.CallID, paths ...string) (*patchstore.Run, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	run, c, err := g.readStartedCall(ctx, runID, callID)
	if err != nil {
		return nil, err
	}
	id := run.ID
	if err := g.useRunSettings(ctx, run.Checkpoint); err != nil {
		return nil, err
	}
	patches, after, err := g.pathPatches(c, callID, paths)
	if err != nil {
		return nil, err
	}
	return g.store.CommitCalls(ctx, id, []record.CallID{callID}, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		c, err := startedCall(tip, callID)
		if err != nil {
			return nil, err
		}
		c.Touch()
		c.Patches = mergePatches(c.Patches, patches, paths)
		c.Ledger.Patches = len(c.Patches)
		wt, over, err := g.overlayStates(tip.Checkpoint.WorktreeTree, after)
		if err != nil {
			return nil, err
		}
		return &record.Checkpoint{Kind: record.KindCallFinish, CallID: callID, WorktreeTree: wt, Partial: true,
			Oversize: over, IndexTree: tip.Checkpoint.IndexTree, Unmerged: tip.Checkpoint.Unmerged, Head: tip.Checkpoint.Head,
			StepID: tip.Checkpoint.StepID, Label: "captured after state"}, nil
	})
}

// mergePatches replaces the entries for paths with fresh ones.
func mergePatches(old, fresh []record.FilePatch, paths []string) []record.FilePatch {
	drop := map[string]bool{}
	for _, p := range paths {
		drop[p] = true
	}
	var out []record.FilePatch
	for _, p := range old {
		if !drop[p.Path] {
			out = append(out, p)
		}
	}
	out = append(out, fresh...)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// pathPatches captures the after state of declared paths and diffs each
// against its before state.
func (g *Guard) pathPatches(c *patchstore.Call, callID record.CallID, paths []string) ([]record.FilePatch, []record.PathState, error) {
	before := map[string]record.PathState{}
	for _, b := range c.Before {
		before[b.Path] = b
	}
	for _, p := range paths {
		if _, ok := before[p]; !ok {
			return nil, nil, fmt.Errorf("%s was not captured when call %s started; capture its before state first: %w", p, callID, ErrCallState)
		}
	}
	after, err := g.capture(paths)
	if err != nil {
		return nil, nil, err
	}
	var patches []record.FilePatch
	for _, a := range after {
		b := before[a.Path]
		if a.State == b.State {
			continue
		}
		fp, err := g.makePatch(callID, a.Path, b.State, a.State, b.Oversize || a.Oversize)
		if err != nil {
			return nil, nil, err
		}
		patches = append(patches, fp)
	}
	return patches, after, nil
}

// makePatch builds the FilePatch of one path and stores its patch blob.
func (g *Guard) makePatch(callID record.CallID, path string, before, after record.State, oversize bool) (record.FilePatch, error) {
	fp := record.FilePatch{
		Path: path, BeforeHash: before.Hash, AfterHash: after.Hash, BeforeMode: before.Mode, AfterMode: after.Mode,
		ToolCallID: callID, CreatedAt: g.now(), Oversize: oversize,
	}
	var text []byte
	if oversize {
		text = patchstore.OversizePatch(path, before, after)
		fp.Binary = true
	} else {
		a, err := readState(g.db, before)
		if err != nil {
			return fp, err
		}
		b, err := readState(g.db, after)
		if err != nil {
			return fp, err
		}
		text, fp.Binary = patchstore.FormatPatch(path, before, after, a, b)
	}
	h, err := g.db.Write(odb.TypeBlob, text)
	if err != nil {
		return fp, err
	}
	fp.PatchRef = h
	return fp, nil
}

func readState(db *odb.DB, st record.State) ([]byte, error) {
	if !st.Exists() || st.Mode == record.ModeGitlink {
		return nil, nil
	}
	return db.ReadAs(st.Hash, odb.TypeBlob)
}

// treePatches diffs a whole-workspace call's start snapshot against snap.
func (g *Guard) treePatches(ctx context.Context, callID record.CallID, e record.LedgerEntry, run *patchstore.Run, snap *workspace.Snapshot) ([]record.FilePatch, error) {
	changes, err := g.db.DiffTrees(e.BeforeTree, snap.Worktree)
	if err != nil {
		return nil, err
	}
	// Files over the size limit are absent from both trees; bring them back
	// by hash so that growing past the limit is not mistaken for a delete.
	startOver, startSkipped, err := g.oversizeAt(ctx, run, e.StartSeq)
	if err != nil {
		return nil, err
	}
	nowOver := map[string]record.State{}
	for _, o := range snap.Oversize {
		nowOver[o.Path] = record.State{Mode: o.Mode, Hash: o.Hash}
	}
	byPath := map[string]*record.Change{}
	for i := range changes {
		byPath[changes[i].Path] = &changes[i]
	}
	type pair struct {
		before, after record.State
		oversize      bool
	}
	all := map[string]*pair{}
	for _, c := range changes {
		all[c.Path] = &pair{before: state(c.Before), after: state(c.After)}
	}
	for p, st := range startOver {
		x := all[p]
		if x == nil {
			if ch, ok := byPath[p]; ok {
				x = &pair{after: state(ch.After)}
			} else {
				x = &pair{}
				if cur, err := g.db.Lookup(snap.Worktree, p); err == nil {
					x.after = state(cur)
				}
			}
			all[p] = x
		}
		x.before, x.oversize = st, true
	}
	for p, st := range nowOver {
		x := all[p]
		if x == nil {
			x = &pair{}
			if prev, err := g.db.Lookup(e.BeforeTree, p); err == nil {
				x.before = state(prev)
			}
			if b, ok := startOver[p]; ok {
				x.before = b
			}
			all[p] = x
		}
		x.after, x.oversize = st, true
	}
	// A path either snapshot could not read (or one below a folder it could
	// not read) is missing from its tree or holds the index's state: that
	// is no evidence the call changed it, so it gets no patch.
	finishSkipped := slices.Clone(snap.Skipped)
	paths := make([]string, 0, len(all))
	for p, x := range all {
		if x.before == x.after || workspace.SkippedCovers(finishSkipped, p) {
			continue
		}
		if workspace.SkippedCovers(startSkipped, p) {
			snap.Skipped = append(snap.Skipped, unrecordable(p, reasonUnreadAtStart))
			continue
		}
		if why := record.RecordablePath(p); why != "" {
			snap.Skipped = append(snap.Skipped, unrecordable(p, why))
			continue
		}
		if len(e.Globs) > 0 && !workspace.MatchAny(e.Globs, p) {
			continue
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	sort.SliceStable(snap.Skipped, func(i, j int) bool { return snap.Skipped[i].Path < snap.Skipped[j].Path })
	out := make([]record.FilePatch, 0, len(paths))
	for _, p := range paths {
		x := all[p]
		fp, err := g.makePatch(callID, p, x.before, x.after, x.oversize)
		if err != nil {
			return nil, err
		}
		out = append(out, fp)
	}
	return out, nil
}

// oversizeAt returns the oversize files and the skipped paths recorded in
// checkpoint seq of run.
func (g *Guard) oversizeAt(ctx context.Context, run *patchstore.Run, seq int) (map[string]record.State, []record.Skipped, error) {
	out := map[string]record.State{}
	if seq == 0 {
		return out, nil, nil
	}
	en, err := g.store.CheckpointAt(ctx, run.ID, seq)
	if errors.Is(err, patchstore.ErrUnknownCheckpoint) {
		return out, nil, nil // pruned: nothing was recorded by hash only then
	}
	if err != nil {
		return nil, nil, err
	}
	for _, o := range en.Checkpoint.Oversize {
		out[o.Path] = record.State{Mode: o.Mode, Hash: o.Hash}
	}
	return out, en.Checkpoint.Skipped, nil
}

func state(f record.FileState) record.State {
	return record.State{Mode: f.Mode, Hash: f.Hash}
}
