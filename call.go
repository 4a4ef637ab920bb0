package gitguard

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gitguard/gitguard/internal/callstate"
	"github.com/gitguard/gitguard/internal/fault"
	"github.com/gitguard/gitguard/internal/filepatch"
	"github.com/gitguard/gitguard/internal/gitstate"
	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// ErrCallState is returned when a call is not in a state that allows the
// operation (finishing a call that never started, starting one twice,
// starting a denied one).
var ErrCallState = callstate.ErrCallState

// CallOptions describe a tool call. Fields left empty keep what an earlier
// plan of the same call recorded.
type CallOptions struct {
	CallID    record.CallID
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
	Idempotency  record.Idempotency
	ReplayPolicy record.ReplayPolicy
	SideEffects  []string
	Compensation string
	// Undoes names the calls an undo or redo call reverts (set by Undo).
	Undoes     []record.CallID
	Checkpoint CheckpointOptions

	ledgerOnly bool // record the call without capturing any file
}

// FinishOptions describe how a call ended.
type FinishOptions struct {
	Status     record.Status // succeeded (default), failed or uncertain
	Result     string        // short summary of the result
	ResultRef  string        // where the full result is kept
	ExitCode   *int
	Checkpoint CheckpointOptions
	// Evidence, for an uncertain finish the caller makes because the
	// call's process is known to be over (its session ended before the
	// tool's after event came), is recorded as the end of the call's
	// window (record.LedgerEntry.WindowEnd), at the finish's checkpoint.
	Evidence *Evidence
}

func (g *Guard) runFor(ctx context.Context, id record.RunID) (record.RunID, error) {
	return g.EnsureRun(ctx, id)
}

// EnsureRun returns the run to record into: id, or the active run, or a
// new active run. A run named but not yet recorded is started with a
// first snapshot (and made active when no other run is).
func (g *Guard) EnsureRun(ctx context.Context, id record.RunID) (record.RunID, error) {
	return g.ensureRun(ctx, id, CheckpointOptions{})
}

func (g *Guard) ensureRun(ctx context.Context, id record.RunID, opts CheckpointOptions) (record.RunID, error) {
	g.db.StartPackBatch() // one pack for the snapshot and the checkpoint
	defer g.db.EndPackBatch()
	id, start, err := g.planRun(ctx, id, opts)
	if err != nil || start == nil {
		return id, err
	}
	if _, err := g.store.CommitCalls(ctx, id, nil, start.mutate); err != nil {
		return "", err
	}
	return id, start.activated(g, id)
}

// runStart is the first checkpoint of a run not recorded yet, its
// snapshot taken, to be committed.
type runStart struct {
	mutate   patchstore.Mutation
	activate bool // the run becomes the work tree's active run
}

// activated makes run id, now recorded, the active run when s says so.
func (s *runStart) activated(g *Guard, id record.RunID) error {
	if s == nil || !s.activate {
		return nil
	}
	return g.store.SetActiveRun(id)
}

// planRun picks the run to record into as ensureRun does: id, or the
// active run, or a new run. For a run not recorded yet it takes the
// snapshot of the run's first checkpoint (into the caller's batch) and
// returns that checkpoint to commit, as StartRun would record it when the
// run is to be the active one, and without taking over the active run
// otherwise; for a recorded run it returns nil and uses the run's
// settings.
func (g *Guard) planRun(ctx context.Context, id record.RunID, opts CheckpointOptions) (record.RunID, *runStart, error) {
	if err := g.needWorkTree(); err != nil {
		return "", nil, err
	}
	id, err := g.ResolveRun(ctx, id, true)
	if err != nil {
		return "", nil, err
	}
	if id != "" {
		if run, err := g.store.ReadRunCalls(ctx, id); !errors.Is(err, patchstore.ErrUnknownRun) {
			if err == nil {
				err = g.useRunSettings(ctx, run.Checkpoint) // the run keeps its settings
			}
			return id, nil, err
		}
	}
	active, err := g.store.ActiveRun()
	if err != nil {
		return "", nil, err
	}
	if id == "" {
		id = record.NewRunID(time.Now())
	}
	// A new run records the settings it starts with.
	settings, err := g.newRunSettings(ctx)
	if err != nil {
		return "", nil, err
	}
	start := &runStart{activate: active == "" || active == id}
	snapshot := g.ws.Snapshot
	if start.activate {
		// A new active run's first checkpoint counts its changes against
		// HEAD (as StartRun's).
		snapshot = g.ws.SnapshotForHead
	}
	snap, err := snapshot(ctx)
	if err != nil {
		return "", nil, err
	}
	start.mutate = func(tip *patchstore.Run) (*record.Checkpoint, error) {
		cp := filepatch.Checkpoint(snap, record.KindRunStart)
		if !tip.Exists() {
			cp.Settings = settings
		}
		opts.apply(cp, tip)
		return cp, nil
	}
	return id, start, nil
}

func (g *Guard) now() time.Time { return g.store.Time() }

// CallStart records that a tool call is starting, with the before state of
// the files it may change (the declared paths, or the whole workspace), and
// returns once that record is durable: the tool may run after it returns.
// A call planned or approved earlier keeps its plan; starting a call twice
// or starting a denied call returns ErrCallState.
func (g *Guard) CallStart(ctx context.Context, runID record.RunID, o CallOptions) (*Run, error) {
	return runOf(g.callStart(ctx, runID, o))
}

// callStart is CallStart with the store's run.
func (g *Guard) callStart(ctx context.Context, runID record.RunID, o CallOptions) (*patchstore.Run, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := g.scope(&o); err != nil {
		return nil, err
	}
	// The states captured go into the checkpoint's pack.
	g.db.StartPackBatch()
	defer g.db.EndPackBatch()
	// The run's newest checkpoint is read to find the run and to commit
	// on: inflated once.
	defer g.db.Memo()()
	// A run not recorded yet gets its first checkpoint in the same pack
	// and ref update as the call's: the call start costs one round of
	// flushes, as every later one.
	id, start, err := g.planRun(ctx, runID, CheckpointOptions{})
	if err != nil {
		return nil, err
	}
	var first patchstore.Mutation
	if start != nil {
		first = start.mutate
	}
	var snap *workspace.Snapshot
	var before []record.PathState
	switch {
	case o.ledgerOnly:
	case len(o.Paths) > 0:
		if before, err = g.maker().Capture(o.Paths); err != nil {
			return nil, err
		}
	default:
		if snap, err = g.ws.Snapshot(ctx); err != nil {
			return nil, err
		}
	}
	head := gitstate.HeadNow(ctx, g.ws, snap != nil) // HEAD before the tool runs; see headmove.go
	// Crash point: the before state is captured (blobs written), the
	// started entry is not recorded yet.
	fault.Point("call.start.captured")
	run, err := g.store.CommitAwaitedCallsStarting(ctx, id, []record.CallID{o.CallID}, first, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		c := tip.Calls[o.CallID]
		if c == nil {
			c = &patchstore.Call{}
			tip.Calls[o.CallID] = c
		} else {
			switch c.Ledger.Status {
			case record.StatusPlanned, record.StatusApproved:
			case record.StatusDenied:
				return nil, fmt.Errorf("call %s was denied: %w", o.CallID, ErrCallState)
			default:
				return nil, fmt.Errorf("call %s is already %s: %w", o.CallID, c.Ledger.Status, ErrCallState)
			}
		}
		c.Touch()
		now := g.now()
		applyCallOptions(&c.Ledger, o)
		c.Ledger.Status = record.StatusStarted
		c.Ledger.StartedAt = &now
		c.Ledger.StartSeq = runread.NextSeq(tip)
		c.Ledger.Paths, c.Ledger.Globs = o.Paths, o.Globs
		c.Ledger.Head = head
		var cp *record.Checkpoint
		switch {
		case o.ledgerOnly:
			cp = &record.Checkpoint{Kind: record.KindLedger}
		case snap != nil:
			cp = filepatch.Checkpoint(snap, record.KindCallStart)
			c.Ledger.BeforeTree = snap.Worktree
		default:
			c.Before = before
			wt, over, err := g.maker().Overlay(tip.Checkpoint.WorktreeTree, before)
			if err != nil {
				return nil, err
			}
			cp = &record.Checkpoint{Kind: record.KindCallStart, WorktreeTree: wt, Partial: true, Oversize: over,
				IndexTree: tip.Checkpoint.IndexTree, Unmerged: tip.Checkpoint.Unmerged, Head: tip.Checkpoint.Head}
		}
		cp.CallID = o.CallID
		o.Checkpoint.apply(cp, tip)
		if o.StepID != "" {
			cp.StepID = o.StepID
		}
		return cp, nil
	})
	if err != nil {
		return nil, err
	}
	return run, start.activated(g, id)
}

func applyCallOptions(e *record.LedgerEntry, o CallOptions) {
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

// CallFinish records how a call ended and what it changed: for declared
// paths their after states, for a whole-workspace call every path that
// differs between the snapshots at start and now (narrowed by its globs).
// Renames are recorded as a delete and a create.
func (g *Guard) CallFinish(ctx context.Context, runID record.RunID, callID record.CallID, o FinishOptions) (*Run, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	return runOf(g.callFinish(ctx, runID, callID, o, nil, nil))
}

// callFinish is CallFinish with an extra change applied in the same
// checkpoint (undo marks the calls it reverted).
func (g *Guard) callFinish(ctx context.Context, runID record.RunID, callID record.CallID, o FinishOptions, alsoCalls []record.CallID, also func(*patchstore.Run)) (*patchstore.Run, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Status == "" {
		o.Status = record.StatusSucceeded
	}
	// The states and patches captured go into the checkpoint's pack.
	g.db.StartPackBatch()
	defer g.db.EndPackBatch()
	run, c, err := g.readStartedCall(ctx, runID, callID)
	if err != nil {
		again, err := callstate.FinishedAgain(run, callID, o.Status, err)
		if again && err == nil {
			return run, nil // finished already, as asked: nothing to record
		}
		return nil, err
	}
	return g.finishStarted(ctx, run, c, callID, o, alsoCalls, also)
}

// finishStarted is callFinish once the run is read and the call found
// started, inside the caller's pack batch.
func (g *Guard) finishStarted(ctx context.Context, run *patchstore.Run, c *patchstore.Call, callID record.CallID, o FinishOptions, alsoCalls []record.CallID, also func(*patchstore.Run)) (*patchstore.Run, error) {
	id := run.ID
	if err := g.useRunSettings(ctx, run.Checkpoint); err != nil {
		return nil, err
	}
	var (
		patches []record.FilePatch
		others  []record.FilePatch // changes other calls made meanwhile
		after   []record.PathState
		snap    *workspace.Snapshot
		err     error
	)
	ledgerOnly := len(c.Ledger.Paths) == 0 && c.Ledger.BeforeTree.IsZero()
	switch {
	case ledgerOnly:
	case len(c.Ledger.Paths) > 0:
		if patches, after, err = g.pathPatches(c, callID, c.Ledger.Paths); err != nil {
			return nil, err
		}
	default:
		if snap, err = g.ws.Snapshot(ctx); err != nil {
			return nil, err
		}
		if patches, err = g.maker().Tree(ctx, callID, c.Ledger, run, snap); err != nil {
			return nil, err
		}
		if patches, others, err = g.attributor().Attribute(ctx, record.CallRef{Run: id, Call: callID}, &c.Ledger, patches); err != nil {
			return nil, err
		}
	}
	head := gitstate.HeadMoved(ctx, g.ws, c.Ledger.Head) // HEAD moved inside the call: the agent committed
	// Crash point: the after state and the patch blobs are written, the
	// finished entry is not recorded yet.
	fault.Point("call.finish.captured")
	// Undo marks the calls it reverted too (alsoCalls).
	return g.store.CommitAwaitedCalls(ctx, id, append([]record.CallID{callID}, alsoCalls...), func(tip *patchstore.Run) (*record.Checkpoint, error) {
		c, err := callstate.Started(tip, callID)
		if err != nil {
			return nil, err
		}
		c.Touch()
		now := g.now()
		c.Patches, c.Others = patches, others
		c.Ledger.Patches = len(patches)
		c.Ledger.Status = o.Status
		c.Ledger.UncertainReason, c.Ledger.ChangesThrough, c.Ledger.WindowEnd = "", 0, nil
		c.Ledger.FinishedAt = &now
		c.Ledger.FinishSeq = runread.NextSeq(tip)
		if o.Evidence != nil && o.Status == record.StatusUncertain {
			w := *o.Evidence
			w.Seq = c.Ledger.FinishSeq
			if w.At.IsZero() {
				w.At = now
			}
			c.Ledger.WindowEnd = &w
		}
		c.Ledger.Head = head
		c.Ledger.Skipped = filepatch.Skipped(snap)
		c.Ledger.ViewChanges = g.callViewChanges(tip, snap, patches)
		if o.Result != "" {
			c.Ledger.Result = o.Result
		}
		if o.ResultRef != "" {
			c.Ledger.ResultRef = o.ResultRef
		}
		if o.ExitCode != nil {
			c.Ledger.ExitCode = o.ExitCode
		}
		var cp *record.Checkpoint
		switch {
		case ledgerOnly:
			cp = &record.Checkpoint{Kind: record.KindLedger}
		case snap != nil:
			cp = filepatch.Checkpoint(snap, record.KindCallFinish)
		default:
			wt, over, err := g.maker().Overlay(tip.Checkpoint.WorktreeTree, after)
			if err != nil {
				return nil, err
			}
			cp = &record.Checkpoint{Kind: record.KindCallFinish, WorktreeTree: wt, Partial: true, Oversize: over,
				IndexTree: tip.Checkpoint.IndexTree, Unmerged: tip.Checkpoint.Unmerged, Head: tip.Checkpoint.Head}
		}
		cp.CallID = callID
		o.Checkpoint.apply(cp, tip)
		if also != nil {
			also(tip)
		}
		return cp, nil
	})
}
