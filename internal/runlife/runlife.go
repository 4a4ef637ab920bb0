// Package runlife starts, snapshots and finishes runs: the checkpoints
// that look at the whole work tree, outside any call.
//
// It snapshots with the workspace its Settings gives, after making it
// follow the run: a new run records the settings it starts with (and
// counts its first changes against HEAD), a run that exists keeps its own.
// It also carries a run's runtime pointers (step, messages, approvals,
// trace, budget) from one checkpoint to the next (Inherit).
//
// Invariants: a snapshot's objects and its checkpoint go into one pack,
// written before the checkpoint's ref moves (patchstore's commit); a run
// is made the work tree's active run only by Start, and only when no
// other run is; Finish clears the active run only after the finishing
// checkpoint is recorded.
package runlife

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gitguard/gitguard/internal/fault"
	"github.com/gitguard/gitguard/internal/filepatch"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// ErrRunActive is returned by Start when another run is already active.
var ErrRunActive = errors.New("another run is active")

// Settings makes the workspace snapshots are taken with follow the run
// being recorded.
type Settings interface {
	// UseRun snapshots with the settings and view of the run whose
	// newest checkpoint is cp.
	UseRun(ctx context.Context, cp *record.Checkpoint) error
	// NewRun snapshots with the configured settings and returns them, to
	// be recorded in a new run's first checkpoint.
	NewRun(ctx context.Context) (*record.Settings, error)
	// Workspace is the workspace to snapshot with now.
	Workspace() *workspace.Workspace
}

// Apply sets the runtime fields of a checkpoint about to be committed on
// tip.
type Apply func(cp *record.Checkpoint, tip *patchstore.Run)

// Runs records the whole-work-tree checkpoints of one work tree's runs.
// It is not safe for concurrent use.
type Runs struct {
	DB       *odb.DB
	Store    *patchstore.Store
	Settings Settings
}

// resolve is the run named, or the active run ("" for none).
func (r *Runs) resolve(id record.RunID) (record.RunID, error) {
	if id != "" {
		return id, id.Validate()
	}
	return r.Store.ActiveRun()
}

// Snapshot records a checkpoint of the whole workspace in run id (the
// active run when id is empty, a new active run when there is none). The
// snapshot is nil when starting the run recorded it.
func (r *Runs) Snapshot(ctx context.Context, id record.RunID, apply Apply) (*patchstore.Run, *workspace.Snapshot, error) {
	explicit := id
	id, err := r.resolve(id)
	if err != nil {
		return nil, nil, err
	}
	if id == "" || (explicit != "" && !r.exists(ctx, id)) {
		// Starting the run records its first snapshot: that is this one.
		if id, err = r.Ensure(ctx, id, apply); err != nil {
			return nil, nil, err
		}
		run, err := r.Store.ReadRunCalls(ctx, id)
		return run, nil, err
	}
	if tip, err := r.Store.ReadRunCalls(ctx, id); err == nil {
		if err := r.Settings.UseRun(ctx, tip.Checkpoint); err != nil {
			return nil, nil, err
		}
	}
	// The snapshot's new objects go into the checkpoint's pack: one pack
	// and one round of fsyncs instead of two.
	r.DB.StartPackBatch()
	defer r.DB.EndPackBatch()
	snap, err := r.Settings.Workspace().Snapshot(ctx)
	if err != nil {
		return nil, nil, err
	}
	// Crash point: the snapshot's blobs and trees are collected (written,
	// past the batch's memory bound), no record yet.
	fault.Point("snapshot.captured")
	run, err := r.commit(ctx, id, snap, record.KindSnapshot, apply, nil)
	return run, snap, err
}

func (r *Runs) exists(ctx context.Context, id record.RunID) bool {
	_, err := r.Store.ReadRunCalls(ctx, id)
	return err == nil
}

// commit records snap as a checkpoint of kind in run id, edited by edit
// (when set) and then by apply.
func (r *Runs) commit(ctx context.Context, id record.RunID, snap *workspace.Snapshot, kind string, apply Apply, edit func(cp *record.Checkpoint, tip *patchstore.Run)) (*patchstore.Run, error) {
	return r.Store.CommitCalls(ctx, id, nil, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		cp := filepatch.Checkpoint(snap, kind)
		if edit != nil {
			edit(cp, tip)
		}
		apply(cp, tip)
		return cp, nil
	})
}

// Start starts run id (a new id when empty), records its first checkpoint
// and makes it the work tree's active run. Starting a run that exists
// continues it. It returns ErrRunActive if another run is active.
func (r *Runs) Start(ctx context.Context, id record.RunID, apply Apply) (*patchstore.Run, error) {
	active, err := r.Store.ActiveRun()
	if err != nil {
		return nil, err
	}
	if id == "" {
		id = record.NewRunID(time.Now())
	}
	if active != "" && active != id {
		return nil, fmt.Errorf("%w: %s", ErrRunActive, active)
	}
	// A new run records the settings it starts with; a run that exists
	// continues with its own.
	settings, err := r.Settings.NewRun(ctx)
	if err != nil {
		return nil, err
	}
	if tip, err := r.Store.ReadRunCalls(ctx, id); err == nil {
		settings = nil
		if err := r.Settings.UseRun(ctx, tip.Checkpoint); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, patchstore.ErrUnknownRun) {
		return nil, err
	}
	r.DB.StartPackBatch() // one pack for the snapshot and the checkpoint, as Snapshot
	defer r.DB.EndPackBatch()
	ws := r.Settings.Workspace()
	snapshot := ws.Snapshot
	if settings != nil {
		// A new run's first checkpoint counts its changes against HEAD.
		snapshot = ws.SnapshotForHead
	}
	snap, err := snapshot(ctx)
	if err != nil {
		return nil, err
	}
	run, err := r.commit(ctx, id, snap, record.KindRunStart, apply, func(cp *record.Checkpoint, tip *patchstore.Run) {
		if !tip.Exists() {
			cp.Settings = settings
		}
	})
	if err != nil {
		return nil, err
	}
	return run, r.Store.SetActiveRun(id)
}

// Finish records a last checkpoint of run id, marks it finished and
// clears the active run.
func (r *Runs) Finish(ctx context.Context, id record.RunID, apply Apply) (*patchstore.Run, error) {
	tip, err := r.Store.ReadRunCalls(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := r.Settings.UseRun(ctx, tip.Checkpoint); err != nil {
		return nil, err
	}
	snap, err := r.Settings.Workspace().Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	run, err := r.commit(ctx, id, snap, record.KindRunFinish, func(cp *record.Checkpoint, tip *patchstore.Run) {
		apply(cp, tip)
		cp.RunFinished = true
	}, nil)
	if err != nil {
		return nil, err
	}
	return run, r.Store.ClearActiveRun(id)
}

// Ensure returns the run to record into: id, or the active run, or a new
// active run. A run named but not yet recorded is started with a first
// snapshot (and made active when no other run is).
func (r *Runs) Ensure(ctx context.Context, id record.RunID, apply Apply) (record.RunID, error) {
	r.DB.StartPackBatch() // one pack for the snapshot and the checkpoint
	defer r.DB.EndPackBatch()
	id, first, err := r.Plan(ctx, id, apply)
	if err != nil || first == nil {
		return id, err
	}
	if _, err := r.Store.CommitCalls(ctx, id, nil, first.Mutate); err != nil {
		return "", err
	}
	return id, first.Activate(r.Store, id)
}

// First is the first checkpoint of a run not recorded yet, its snapshot
// taken, to be committed: alone (Ensure), or in the same pack and ref
// update as the start of the run's first call.
type First struct {
	Mutate   patchstore.Mutation
	activate bool // the run becomes the work tree's active run
}

// Activate makes run id, now recorded, the work tree's active run when f
// (which may be nil) says so: when no other run was active.
func (f *First) Activate(store *patchstore.Store, id record.RunID) error {
	if f == nil || !f.activate {
		return nil
	}
	return store.SetActiveRun(id)
}

// Plan picks the run to record into as Ensure does: id, or the active
// run, or a new run. For a run not recorded yet it takes the snapshot of
// the run's first checkpoint (into the caller's pack batch) and returns
// that checkpoint, as Start would record it when the run is to be the
// active one, and without taking over the active run otherwise. For a run
// that exists it returns nil, the run keeping its settings.
func (r *Runs) Plan(ctx context.Context, id record.RunID, apply Apply) (record.RunID, *First, error) {
	id, err := r.resolve(id)
	if err != nil {
		return "", nil, err
	}
	if id != "" {
		if run, err := r.Store.ReadRunCalls(ctx, id); !errors.Is(err, patchstore.ErrUnknownRun) {
			if err == nil {
				err = r.Settings.UseRun(ctx, run.Checkpoint) // the run keeps its settings
			}
			return id, nil, err
		}
	}
	active, err := r.Store.ActiveRun()
	if err != nil {
		return "", nil, err
	}
	if id == "" {
		id = record.NewRunID(time.Now())
	}
	// A new run records the settings it starts with.
	settings, err := r.Settings.NewRun(ctx)
	if err != nil {
		return "", nil, err
	}
	first := &First{activate: active == "" || active == id}
	ws := r.Settings.Workspace()
	snapshot := ws.Snapshot
	if first.activate {
		// A new active run's first checkpoint counts its changes against
		// HEAD, as Start's.
		snapshot = ws.SnapshotForHead
	}
	snap, err := snapshot(ctx)
	if err != nil {
		return "", nil, err
	}
	first.Mutate = func(tip *patchstore.Run) (*record.Checkpoint, error) {
		cp := filepatch.Checkpoint(snap, record.KindRunStart)
		if !tip.Exists() {
			cp.Settings = settings
		}
		apply(cp, tip)
		return cp, nil
	}
	return id, first, nil
}

// Inherit carries onto cp, about to be committed on tip, the runtime
// pointers of tip's checkpoint that cp does not set anew (step, messages,
// approvals, trace, budget) and, with keepFinished, that the run is
// finished: a checkpoint that is not the agent's (an undo's or a redo's)
// does not make a finished run go on.
func Inherit(cp *record.Checkpoint, tip *patchstore.Run, keepFinished bool) {
	if tip == nil || !tip.Exists() {
		return
	}
	prev := tip.Checkpoint
	if keepFinished && prev.RunFinished {
		cp.RunFinished, cp.RunFinishedAt = true, patchstore.FinishedAt(prev)
	}
	if cp.StepID == "" {
		cp.StepID = prev.StepID
	}
	if cp.MessagesRef == "" {
		cp.MessagesRef = prev.MessagesRef
	}
	if cp.ApprovalsRef == "" {
		cp.ApprovalsRef = prev.ApprovalsRef
	}
	if cp.TraceRef == "" {
		cp.TraceRef = prev.TraceRef
	}
	if cp.Budget.IsZero() {
		cp.Budget = prev.Budget
	}
}
