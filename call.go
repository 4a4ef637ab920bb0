package gitguard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gitguard/gitguard/internal/fault"
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/internal/ospath"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/workspace"
)

// ErrCallState is returned when a call is not in a state that allows the
// operation (finishing a call that never started, starting one twice,
// starting a denied one).
var ErrCallState = errors.New("call is in the wrong state")

// ErrOutsideWorkTree is returned for a path argument outside the work tree.
var ErrOutsideWorkTree = errors.New("path is outside the work tree")

// CallOptions describe a tool call. Fields left empty keep what an earlier
// plan of the same call recorded.
type CallOptions struct {
	CallID    string
	Tool      string
	StepID    string
	InputHash string
	Input     string // a short human summary, e.g. the command line
	// Paths limits the capture to these work-tree paths (slash-separated,
	// relative to the top); empty means the whole workspace. A path that is
	// a folder widens to everything below it.
	Paths []string
	// Globs (doublestar) narrow a whole-workspace capture.
	Globs        []string
	Idempotency  patchstore.Idempotency
	ReplayPolicy patchstore.ReplayPolicy
	SideEffects  []string
	Compensation string
	// Undoes names the calls an undo or redo call reverts (set by Undo).
	Undoes     []string
	Checkpoint CheckpointOptions

	ledgerOnly bool // record the call without capturing any file
}

// FinishOptions describe how a call ended.
type FinishOptions struct {
	Status     patchstore.Status // succeeded (default), failed or uncertain
	Result     string            // short summary of the result
	ResultRef  string            // where the full result is kept
	ExitCode   *int
	Checkpoint CheckpointOptions
}

// RepoPath turns a path argument (relative to dir, or absolute) into a
// slash-separated path relative to the top of the work tree. It returns
// ErrOutsideWorkTree for paths that leave it, and patchstore.ErrBadPath for
// paths into .git.
func (g *Guard) RepoPath(dir, arg string) (string, error) {
	abs := arg
	if !filepath.IsAbs(abs) {
		base, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		abs = filepath.Join(base, arg)
	}
	// The work tree may be reached through a symlinked folder (/tmp on
	// some systems): compare resolved parents.
	// ospath compares as the platform does: drive letters and names in
	// any case and either slash on Windows.
	top := g.Repo.WorkTree
	host := ospath.Host()
	rel, ok := host.Rel(top, abs)
	if !ok {
		if rtop, e1 := filepath.EvalSymlinks(top); e1 == nil {
			if rdir, e2 := filepath.EvalSymlinks(filepath.Dir(abs)); e2 == nil {
				rel, ok = host.Rel(rtop, filepath.Join(rdir, filepath.Base(abs)))
			}
		}
	}
	if !ok || rel == "" {
		return "", fmt.Errorf("%s: %w (%s)", arg, ErrOutsideWorkTree, top)
	}
	if err := patchstore.ValidatePath(rel); err != nil {
		return "", err
	}
	return rel, nil
}

// escapeGlob quotes doublestar metacharacters in a literal path.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// scope splits declared paths into files captured one by one, or widens
// to a whole-workspace capture with globs when a path is a folder.
func (g *Guard) scope(o *CallOptions) error {
	for _, p := range o.Paths {
		if err := patchstore.ValidatePath(p); err != nil {
			return err
		}
	}
	for _, gl := range o.Globs {
		if !validGlob(gl) {
			return fmt.Errorf("glob %q: %w", gl, workspace.ErrBadGlob)
		}
	}
	var dirs bool
	for _, p := range o.Paths {
		if fi, err := os.Stat(g.WS.Abs(p)); err == nil && fi.IsDir() {
			dirs = true
		}
	}
	if !dirs {
		o.Paths = dedupe(o.Paths)
		return nil
	}
	for _, p := range o.Paths {
		if fi, err := os.Stat(g.WS.Abs(p)); err == nil && fi.IsDir() {
			o.Globs = append(o.Globs, escapeGlob(p)+"/**")
		} else {
			o.Globs = append(o.Globs, escapeGlob(p))
		}
	}
	o.Paths = nil
	return nil
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range in {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

func (g *Guard) runFor(ctx context.Context, id string) (string, error) { return g.EnsureRun(ctx, id) }

// EnsureRun returns the run to record into: id, or the active run, or a
// new active run. A run named but not yet recorded is started with a
// first snapshot (and made active when no other run is).
func (g *Guard) EnsureRun(ctx context.Context, id string) (string, error) {
	return g.ensureRun(ctx, id, CheckpointOptions{})
}

func (g *Guard) ensureRun(ctx context.Context, id string, opts CheckpointOptions) (string, error) {
	id, err := g.ResolveRun(ctx, id, true)
	if err != nil {
		return "", err
	}
	if id != "" {
		if _, err := g.Store.ReadRunCalls(ctx, id); !errors.Is(err, patchstore.ErrUnknownRun) {
			return id, err
		}
		active, err := g.Store.ActiveRun()
		if err != nil {
			return "", err
		}
		if active != "" && active != id {
			// Start it without taking over the active run.
			snap, err := g.WS.Snapshot(ctx)
			if err != nil {
				return "", err
			}
			_, err = g.Store.CommitCalls(ctx, id, nil, func(tip *patchstore.Run) (*patchstore.Checkpoint, error) {
				cp := snapshotCheckpoint(snap, patchstore.KindRunStart)
				opts.apply(cp, tip)
				return cp, nil
			})
			return id, err
		}
	}
	run, err := g.StartRun(ctx, id, opts)
	if err != nil {
		return "", err
	}
	return run.ID, nil
}

// capture records the current state of each path, storing blobs.
func (g *Guard) capture(paths []string) ([]patchstore.PathState, error) {
	out := make([]patchstore.PathState, 0, len(paths))
	for _, p := range paths {
		fs, oversize, err := g.WS.Capture(p, true)
		if err != nil {
			return nil, err
		}
		if fs.Mode == odb.ModeTree {
			fs.Mode, fs.Hash = odb.ModeNone, git.ZeroHash // a folder is no file
		}
		out = append(out, patchstore.PathState{Path: p, State: patchstore.State{Mode: fs.Mode, Hash: fs.Hash}, Oversize: oversize})
	}
	return out, nil
}

// overlayStates writes captured states over a base work tree; oversize
// files are left out, as a full snapshot leaves them out.
func (g *Guard) overlayStates(base git.Hash, states []patchstore.PathState) (git.Hash, []patchstore.FileRecord, error) {
	var fs []workspace.FileState
	var over []patchstore.FileRecord
	for _, s := range states {
		if s.Oversize {
			over = append(over, patchstore.FileRecord{Path: s.Path, Mode: s.Mode, Hash: s.Hash})
			fs = append(fs, workspace.FileState{Path: s.Path})
			continue
		}
		fs = append(fs, workspace.FileState{Path: s.Path, Mode: s.Mode, Hash: s.Hash})
	}
	h, err := workspace.Overlay(g.DB, base, fs)
	return h, over, err
}

func nextSeq(tip *patchstore.Run) int {
	if tip.Exists() {
		return tip.Checkpoint.Seq + 1
	}
	return 1
}

func (g *Guard) now() time.Time { return g.Store.Time() }

// CallStart records that a tool call is starting, with the before state of
// the files it may change (the declared paths, or the whole workspace), and
// returns once that record is durable: the tool may run after it returns.
// A call planned or approved earlier keeps its plan; starting a call twice
// or starting a denied call returns ErrCallState.
func (g *Guard) CallStart(ctx context.Context, runID string, o CallOptions) (*patchstore.Run, error) {
	if err := patchstore.ValidateCallID(o.CallID); err != nil {
		return nil, usageErr(err)
	}
	if err := g.scope(&o); err != nil {
		return nil, err
	}
	id, err := g.runFor(ctx, runID)
	if err != nil {
		return nil, err
	}
	var snap *workspace.Snapshot
	var before []patchstore.PathState
	switch {
	case o.ledgerOnly:
	case len(o.Paths) > 0:
		if before, err = g.capture(o.Paths); err != nil {
			return nil, err
		}
	default:
		if snap, err = g.WS.Snapshot(ctx); err != nil {
			return nil, err
		}
	}
	// Crash point: the before state is captured (blobs written), the
	// started entry is not recorded yet.
	fault.Point("call.start.captured")
	return g.Store.CommitCalls(ctx, id, []string{o.CallID}, func(tip *patchstore.Run) (*patchstore.Checkpoint, error) {
		c := tip.Calls[o.CallID]
		if c == nil {
			c = &patchstore.Call{}
			tip.Calls[o.CallID] = c
		} else {
			switch c.Ledger.Status {
			case patchstore.StatusPlanned, patchstore.StatusApproved:
			case patchstore.StatusDenied:
				return nil, fmt.Errorf("call %s was denied: %w", o.CallID, ErrCallState)
			default:
				return nil, fmt.Errorf("call %s is already %s: %w", o.CallID, c.Ledger.Status, ErrCallState)
			}
		}
		c.Touch()
		now := g.now()
		applyCallOptions(&c.Ledger, o)
		c.Ledger.Status = patchstore.StatusStarted
		c.Ledger.StartedAt = &now
		c.Ledger.StartSeq = nextSeq(tip)
		c.Ledger.Paths, c.Ledger.Globs = o.Paths, o.Globs
		var cp *patchstore.Checkpoint
		switch {
		case o.ledgerOnly:
			cp = &patchstore.Checkpoint{Kind: patchstore.KindLedger}
		case snap != nil:
			cp = snapshotCheckpoint(snap, patchstore.KindCallStart)
			c.Ledger.BeforeTree = snap.Worktree
		default:
			c.Before = before
			wt, over, err := g.overlayStates(tip.Checkpoint.WorktreeTree, before)
			if err != nil {
				return nil, err
			}
			cp = &patchstore.Checkpoint{Kind: patchstore.KindCallStart, WorktreeTree: wt, Partial: true, Oversize: over,
				IndexTree: tip.Checkpoint.IndexTree, Head: tip.Checkpoint.Head}
		}
		cp.CallID = o.CallID
		o.Checkpoint.apply(cp, tip)
		if o.StepID != "" {
			cp.StepID = o.StepID
		}
		return cp, nil
	})
}

func applyCallOptions(e *patchstore.LedgerEntry, o CallOptions) {
	e.CallID = o.CallID
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&e.ToolName, o.Tool)
	set(&e.StepID, o.StepID)
	set(&e.InputHash, o.InputHash)
	set(&e.Input, o.Input)
	set(&e.Compensation, o.Compensation)
	if o.Idempotency != "" {
		e.Idempotency = o.Idempotency
	}
	if o.ReplayPolicy != "" {
		e.ReplayPolicy = o.ReplayPolicy
	}
	if len(o.SideEffects) > 0 {
		e.SideEffects = o.SideEffects
	}
	if len(o.Undoes) > 0 {
		e.Undoes = o.Undoes
	}
	if e.ToolName == "" {
		e.ToolName = "unknown"
	}
}

// CaptureBefore adds paths to a started call, recording their current
// state as the call's before state. An agent runtime calls it just before
// writing a file the call did not declare at start.
func (g *Guard) CaptureBefore(ctx context.Context, runID, callID string, paths ...string) (*patchstore.Run, error) {
	id, err := g.ResolveRun(ctx, runID, false)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		if err := patchstore.ValidatePath(p); err != nil {
			return nil, err
		}
	}
	states, err := g.capture(paths)
	if err != nil {
		return nil, err
	}
	return g.Store.CommitCalls(ctx, id, []string{callID}, func(tip *patchstore.Run) (*patchstore.Checkpoint, error) {
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
		var added []patchstore.PathState
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
		return &patchstore.Checkpoint{Kind: patchstore.KindCallStart, CallID: callID, WorktreeTree: wt, Partial: true,
			Oversize: over, IndexTree: tip.Checkpoint.IndexTree, Head: tip.Checkpoint.Head,
			StepID: tip.Checkpoint.StepID}, nil
	})
}

// readStartedCall reads the run (the active one when runID is empty) with
// the records of the started call callID only, and that call.
func (g *Guard) readStartedCall(ctx context.Context, runID, callID string) (*patchstore.Run, *patchstore.Call, error) {
	id, err := g.ResolveRun(ctx, runID, false)
	if err != nil {
		return nil, nil, err
	}
	run, err := g.Store.ReadRunCalls(ctx, id, callID)
	if err != nil {
		return nil, nil, err
	}
	c, err := startedCall(run, callID)
	return run, c, err
}

func startedCall(tip *patchstore.Run, callID string) (*patchstore.Call, error) {
	c := tip.Calls[callID]
	if c == nil {
		return nil, fmt.Errorf("call %q in run %s: %w", callID, tip.ID, patchstore.ErrUnknownCall)
	}
	switch c.Ledger.Status {
	case patchstore.StatusStarted:
	case patchstore.StatusUncertain:
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
func (g *Guard) CaptureAfter(ctx context.Context, runID, callID string, paths ...string) (*patchstore.Run, error) {
	run, c, err := g.readStartedCall(ctx, runID, callID)
	if err != nil {
		return nil, err
	}
	id := run.ID
	patches, after, err := g.pathPatches(c, callID, paths)
	if err != nil {
		return nil, err
	}
	return g.Store.CommitCalls(ctx, id, []string{callID}, func(tip *patchstore.Run) (*patchstore.Checkpoint, error) {
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
		return &patchstore.Checkpoint{Kind: patchstore.KindCallFinish, CallID: callID, WorktreeTree: wt, Partial: true,
			Oversize: over, IndexTree: tip.Checkpoint.IndexTree, Head: tip.Checkpoint.Head,
			StepID: tip.Checkpoint.StepID, Label: "captured after state"}, nil
	})
}

// mergePatches replaces the entries for paths with fresh ones.
func mergePatches(old, fresh []patchstore.FilePatch, paths []string) []patchstore.FilePatch {
	drop := map[string]bool{}
	for _, p := range paths {
		drop[p] = true
	}
	var out []patchstore.FilePatch
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
func (g *Guard) pathPatches(c *patchstore.Call, callID string, paths []string) ([]patchstore.FilePatch, []patchstore.PathState, error) {
	before := map[string]patchstore.PathState{}
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
	var patches []patchstore.FilePatch
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
func (g *Guard) makePatch(callID, path string, before, after patchstore.State, oversize bool) (patchstore.FilePatch, error) {
	fp := patchstore.FilePatch{
		Path: path, BeforeHash: before.Hash, AfterHash: after.Hash, BeforeMode: before.Mode, AfterMode: after.Mode,
		ToolCallID: callID, CreatedAt: g.now(), Oversize: oversize,
	}
	var text []byte
	if oversize {
		text = patchstore.OversizePatch(path, before, after)
		fp.Binary = true
	} else {
		a, err := readState(g.DB, before)
		if err != nil {
			return fp, err
		}
		b, err := readState(g.DB, after)
		if err != nil {
			return fp, err
		}
		text, fp.Binary = patchstore.FormatPatch(path, before, after, a, b)
	}
	h, err := g.DB.Write(odb.TypeBlob, text)
	if err != nil {
		return fp, err
	}
	fp.PatchRef = h
	return fp, nil
}

func readState(db *odb.DB, st patchstore.State) ([]byte, error) {
	if !st.Exists() || st.Mode == odb.ModeGitlink {
		return nil, nil
	}
	return db.ReadAs(st.Hash, odb.TypeBlob)
}

// CallFinish records how a call ended and what it changed: for declared
// paths their after states, for a whole-workspace call every path that
// differs between the snapshots at start and now (narrowed by its globs).
// Renames are recorded as a delete and a create.
func (g *Guard) CallFinish(ctx context.Context, runID, callID string, o FinishOptions) (*patchstore.Run, error) {
	return g.callFinish(ctx, runID, callID, o, nil)
}

// callFinish is CallFinish with an extra change applied in the same
// checkpoint (undo marks the calls it reverted).
func (g *Guard) callFinish(ctx context.Context, runID, callID string, o FinishOptions, also func(*patchstore.Run)) (*patchstore.Run, error) {
	if o.Status == "" {
		o.Status = patchstore.StatusSucceeded
	}
	switch o.Status {
	case patchstore.StatusSucceeded, patchstore.StatusFailed, patchstore.StatusUncertain:
	default:
		return nil, usageErr(fmt.Errorf("finish status %q: want succeeded, failed or uncertain", o.Status))
	}
	run, c, err := g.readStartedCall(ctx, runID, callID)
	if err != nil {
		return nil, err
	}
	id := run.ID
	var (
		patches []patchstore.FilePatch
		after   []patchstore.PathState
		snap    *workspace.Snapshot
	)
	ledgerOnly := len(c.Ledger.Paths) == 0 && c.Ledger.BeforeTree.IsZero()
	switch {
	case ledgerOnly:
	case len(c.Ledger.Paths) > 0:
		if patches, after, err = g.pathPatches(c, callID, c.Ledger.Paths); err != nil {
			return nil, err
		}
	default:
		if snap, err = g.WS.Snapshot(ctx); err != nil {
			return nil, err
		}
		if patches, err = g.treePatches(ctx, callID, c.Ledger, run, snap); err != nil {
			return nil, err
		}
	}
	// Crash point: the after state and the patch blobs are written, the
	// finished entry is not recorded yet.
	fault.Point("call.finish.captured")
	commit := func(ctx context.Context, id string, m patchstore.Mutation) (*patchstore.Run, error) {
		return g.Store.CommitCalls(ctx, id, []string{callID}, m)
	}
	if also != nil {
		commit = g.Store.Commit // undo marks other calls too
	}
	return commit(ctx, id, func(tip *patchstore.Run) (*patchstore.Checkpoint, error) {
		c, err := startedCall(tip, callID)
		if err != nil {
			return nil, err
		}
		c.Touch()
		now := g.now()
		c.Patches = patches
		c.Ledger.Patches = len(patches)
		c.Ledger.Status = o.Status
		c.Ledger.UncertainReason = ""
		c.Ledger.FinishedAt = &now
		c.Ledger.FinishSeq = nextSeq(tip)
		if o.Result != "" {
			c.Ledger.Result = o.Result
		}
		if o.ResultRef != "" {
			c.Ledger.ResultRef = o.ResultRef
		}
		if o.ExitCode != nil {
			c.Ledger.ExitCode = o.ExitCode
		}
		var cp *patchstore.Checkpoint
		switch {
		case ledgerOnly:
			cp = &patchstore.Checkpoint{Kind: patchstore.KindLedger}
		case snap != nil:
			cp = snapshotCheckpoint(snap, patchstore.KindCallFinish)
		default:
			wt, over, err := g.overlayStates(tip.Checkpoint.WorktreeTree, after)
			if err != nil {
				return nil, err
			}
			cp = &patchstore.Checkpoint{Kind: patchstore.KindCallFinish, WorktreeTree: wt, Partial: true, Oversize: over,
				IndexTree: tip.Checkpoint.IndexTree, Head: tip.Checkpoint.Head}
		}
		cp.CallID = callID
		o.Checkpoint.apply(cp, tip)
		if also != nil {
			also(tip)
		}
		return cp, nil
	})
}

// treePatches diffs a whole-workspace call's start snapshot against snap.
func (g *Guard) treePatches(ctx context.Context, callID string, e patchstore.LedgerEntry, run *patchstore.Run, snap *workspace.Snapshot) ([]patchstore.FilePatch, error) {
	changes, err := workspace.DiffTrees(g.DB, e.BeforeTree, snap.Worktree)
	if err != nil {
		return nil, err
	}
	// Files over the size limit are absent from both trees; bring them back
	// by hash so that growing past the limit is not mistaken for a delete.
	startOver, err := g.oversizeAt(ctx, run, e.StartSeq)
	if err != nil {
		return nil, err
	}
	nowOver := map[string]patchstore.State{}
	for _, o := range snap.Oversize {
		nowOver[o.Path] = patchstore.State{Mode: o.Mode, Hash: o.Hash}
	}
	byPath := map[string]*workspace.Change{}
	for i := range changes {
		byPath[changes[i].Path] = &changes[i]
	}
	type pair struct {
		before, after patchstore.State
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
				if cur, err := workspace.Lookup(g.DB, snap.Worktree, p); err == nil {
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
			if prev, err := workspace.Lookup(g.DB, e.BeforeTree, p); err == nil {
				x.before = state(prev)
			}
			if b, ok := startOver[p]; ok {
				x.before = b
			}
			all[p] = x
		}
		x.after, x.oversize = st, true
	}
	// A path the snapshot could not read is missing from its tree: that is
	// no evidence the call deleted it, so it gets no patch.
	skipped := map[string]bool{}
	for _, sk := range snap.Skipped {
		skipped[sk.Path] = true
	}
	paths := make([]string, 0, len(all))
	for p, x := range all {
		if x.before == x.after || skipped[p] {
			continue
		}
		if len(e.Globs) > 0 && !workspace.MatchAny(e.Globs, p) {
			continue
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]patchstore.FilePatch, 0, len(paths))
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

// oversizeAt returns the oversize files recorded in checkpoint seq of run.
func (g *Guard) oversizeAt(ctx context.Context, run *patchstore.Run, seq int) (map[string]patchstore.State, error) {
	out := map[string]patchstore.State{}
	if seq == 0 {
		return out, nil
	}
	en, err := g.Store.CheckpointAt(ctx, run.ID, seq)
	if errors.Is(err, patchstore.ErrUnknownCheckpoint) {
		return out, nil // pruned: nothing was recorded by hash only then
	}
	if err != nil {
		return nil, err
	}
	for _, o := range en.Checkpoint.Oversize {
		out[o.Path] = patchstore.State{Mode: o.Mode, Hash: o.Hash}
	}
	return out, nil
}

func state(f workspace.FileState) patchstore.State {
	return patchstore.State{Mode: f.Mode, Hash: f.Hash}
}
