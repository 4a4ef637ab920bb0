package gitguard

import (
	"context"
	"time"

	"github.com/gitguard/gitguard/internal/callstate"
	"github.com/gitguard/gitguard/internal/fault"
	"github.com/gitguard/gitguard/internal/gitstate"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
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
	if err := g.needWorkTree(); err != nil {
		return "", err
	}
	return g.runs().Ensure(ctx, id, opts.apply)
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
	id, first, err := g.runs().Plan(ctx, runID, CheckpointOptions{}.apply)
	if err != nil {
		return nil, err
	}
	var firstMutate patchstore.Mutation
	if first != nil {
		firstMutate = first.Mutate
	}
	captured, err := callstate.CaptureStart(ctx, g.maker(), o.ledgerOnly, o.Paths)
	if err != nil {
		return nil, err
	}
	head := gitstate.HeadNow(ctx, g.ws, g.refs, captured.Snap != nil) // HEAD before the tool runs; see headmove.go
	// Crash point: the before state is captured (blobs written), the
	// started entry is not recorded yet.
	fault.Point("call.start.captured")
	plan := o.entry()
	plan.Head = head
	run, err := g.store.CommitAwaitedCallsStarting(ctx, id, []record.CallID{o.CallID}, firstMutate, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		cp, err := callstate.Start(tip, g.maker(), plan, captured, g.now())
		if err != nil {
			return nil, err
		}
		o.Checkpoint.apply(cp, tip)
		if o.StepID != "" {
			cp.StepID = o.StepID
		}
		return cp, nil
	})
	if err != nil {
		return nil, err
	}
	return run, first.Activate(g.store, id)
}

// entry is the ledger entry o describes (see callstate.Merge).
func (o CallOptions) entry() record.LedgerEntry {
	return record.LedgerEntry{CallID: o.CallID, ToolName: o.Tool, StepID: o.StepID, InputHash: o.InputHash, Input: o.Input,
		Idempotency: o.Idempotency, ReplayPolicy: o.ReplayPolicy, SideEffects: o.SideEffects, Compensation: o.Compensation,
		Undoes: o.Undoes, Paths: o.Paths, Globs: o.Globs}
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
	fin, err := g.attributor().Finished(ctx, run, c, callID)
	if err != nil {
		return nil, err
	}
	fin.Head = gitstate.HeadMoved(ctx, g.ws, g.refs, c.Ledger.Head) // HEAD moved inside the call: the agent committed
	// Crash point: the after state and the patch blobs are written, the
	// finished entry is not recorded yet.
	fault.Point("call.finish.captured")
	fin.Status, fin.Result, fin.ResultRef, fin.ExitCode, fin.Evidence = o.Status, o.Result, o.ResultRef, o.ExitCode, o.Evidence
	// Undo marks the calls it reverted too (alsoCalls).
	return g.store.CommitAwaitedCalls(ctx, id, append([]record.CallID{callID}, alsoCalls...), func(tip *patchstore.Run) (*record.Checkpoint, error) {
		cp, err := fin.Record(tip, callID, g.maker(), g.log, g.now())
		if err != nil {
			return nil, err
		}
		o.Checkpoint.apply(cp, tip)
		if also != nil {
			also(tip)
		}
		return cp, nil
	})
}
