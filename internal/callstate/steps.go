package callstate

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gitguard/gitguard/internal/filepatch"
	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// The steps below change the tip a commit hands them (patchstore's
// CommitCalls) and return the checkpoint to record; the caller sets the
// checkpoint's runtime fields and commits.

// Merge sets the fields of e that plan sets: the caller's description of
// the call (its id, tool, step, input, idempotency, replay policy, side
// effects, compensation, the calls it undoes). Fields plan leaves empty
// keep what an earlier plan of the call recorded; a call no one named the
// tool of is "unknown".
func Merge(e *record.LedgerEntry, plan record.LedgerEntry) {
	e.CallID = plan.CallID
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&e.ToolName, plan.ToolName)
	set(&e.StepID, plan.StepID)
	set(&e.InputHash, plan.InputHash)
	set(&e.Input, plan.Input)
	set(&e.Compensation, plan.Compensation)
	if plan.Idempotency != "" {
		e.Idempotency = plan.Idempotency
	}
	if plan.ReplayPolicy != "" {
		e.ReplayPolicy = plan.ReplayPolicy
	}
	if len(plan.SideEffects) > 0 {
		e.SideEffects = plan.SideEffects
	}
	if len(plan.Undoes) > 0 {
		e.Undoes = plan.Undoes
	}
	if e.ToolName == "" {
		e.ToolName = "unknown"
	}
}

// Plan records call plan.CallID planned in tip (planning it again updates
// the plan). It returns ErrCallState for a call past planning.
func Plan(tip *patchstore.Run, plan record.LedgerEntry, now time.Time) (*record.Checkpoint, error) {
	c := tip.Calls[plan.CallID]
	if c == nil {
		c = &patchstore.Call{}
		tip.Calls[plan.CallID] = c
	} else if s := c.Ledger.Status; s != record.StatusPlanned && s != record.StatusApproved {
		return nil, fmt.Errorf("call %s is already %s and cannot be planned again: %w", plan.CallID, s, ErrCallState)
	}
	c.Touch()
	Merge(&c.Ledger, plan)
	c.Ledger.Status = record.StatusPlanned
	c.Ledger.PlannedAt = &now
	return &record.Checkpoint{Kind: record.KindLedger, CallID: plan.CallID, Label: "planned"}, nil
}

// Decide records the approval or denial of planned call callID in tip, by
// whom and why. It returns patchstore.ErrUnknownCall for a call never
// planned and ErrCallState for one that started.
func Decide(tip *patchstore.Run, callID record.CallID, approve bool, by, reason string, now time.Time) (*record.Checkpoint, error) {
	c := tip.Calls[callID]
	if c == nil {
		return nil, fmt.Errorf("call %q in run %s: %w (plan it first with 'gitguard call plan')", callID, tip.ID, patchstore.ErrUnknownCall)
	}
	if s := c.Ledger.Status; s != record.StatusPlanned && s != record.StatusApproved && s != record.StatusDenied {
		return nil, fmt.Errorf("call %s is already %s; decide before it starts: %w", callID, s, ErrCallState)
	}
	c.Touch()
	a := &record.Approval{Decision: "approved", By: by, Reason: reason, At: now}
	c.Ledger.Status = record.StatusApproved
	if !approve {
		a.Decision = "denied"
		c.Ledger.Status = record.StatusDenied
	}
	c.Ledger.Approval = a
	return &record.Checkpoint{Kind: record.KindLedger, CallID: callID, Label: a.Decision,
		StepID: tip.Checkpoint.StepID}, nil
}

// Capture is what a call's start or finish captured: nothing (a call
// recorded in the ledger only), a snapshot of the whole workspace, or the
// states of its declared paths.
type Capture struct {
	LedgerOnly bool
	Snap       *workspace.Snapshot
	States     []record.PathState
}

// checkpoint is the checkpoint of kind that records what c captured.
func (c Capture) checkpoint(kind string, tip *patchstore.Run, m *filepatch.Maker) (*record.Checkpoint, error) {
	switch {
	case c.LedgerOnly:
		return &record.Checkpoint{Kind: record.KindLedger}, nil
	case c.Snap != nil:
		return filepatch.Checkpoint(c.Snap, kind), nil
	}
	return m.Partial(kind, tip, c.States)
}

// Start records call plan.CallID started in tip, with the paths, globs
// and HEAD plan names and what its start captured. A call planned or
// approved earlier keeps its plan; starting a call twice or starting a
// denied call returns ErrCallState.
func Start(tip *patchstore.Run, m *filepatch.Maker, plan record.LedgerEntry, captured Capture, now time.Time) (*record.Checkpoint, error) {
	c := tip.Calls[plan.CallID]
	if c == nil {
		c = &patchstore.Call{}
		tip.Calls[plan.CallID] = c
	} else {
		switch c.Ledger.Status {
		case record.StatusPlanned, record.StatusApproved:
		case record.StatusDenied:
			return nil, fmt.Errorf("call %s was denied: %w", plan.CallID, ErrCallState)
		default:
			return nil, fmt.Errorf("call %s is already %s: %w", plan.CallID, c.Ledger.Status, ErrCallState)
		}
	}
	c.Touch()
	Merge(&c.Ledger, plan)
	c.Ledger.Status = record.StatusStarted
	c.Ledger.StartedAt = &now
	c.Ledger.StartSeq = runread.NextSeq(tip)
	c.Ledger.Paths, c.Ledger.Globs = plan.Paths, plan.Globs
	c.Ledger.Head = plan.Head
	switch {
	case captured.Snap != nil && !captured.LedgerOnly:
		c.Ledger.BeforeTree = captured.Snap.Worktree
	case !captured.LedgerOnly:
		c.Before = captured.States
	}
	cp, err := captured.checkpoint(record.KindCallStart, tip, m)
	if err != nil {
		return nil, err
	}
	cp.CallID = plan.CallID
	return cp, nil
}

// Finish is how a call ended and what it changed.
type Finish struct {
	Status    record.Status
	Result    string
	ResultRef string
	ExitCode  *int
	// Evidence, for an uncertain finish, is recorded as the end of the
	// call's window.
	Evidence *record.WindowEnd
	Head     *record.HeadMove // what HEAD did inside the call
	Patches  []record.FilePatch
	Others   []record.FilePatch // changes other calls made meanwhile
	Capture
}

// Record records started call callID of tip finished as f says. It
// returns ErrCallState when the call is not started. View changes it
// cannot name are logged to log.
func (f *Finish) Record(tip *patchstore.Run, callID record.CallID, m *filepatch.Maker, log *slog.Logger, now time.Time) (*record.Checkpoint, error) {
	c, err := Started(tip, callID)
	if err != nil {
		return nil, err
	}
	c.Touch()
	c.Patches, c.Others = f.Patches, f.Others
	c.Ledger.Patches = len(f.Patches)
	c.Ledger.Status = f.Status
	c.Ledger.UncertainReason, c.Ledger.ChangesThrough, c.Ledger.WindowEnd = "", 0, nil
	c.Ledger.FinishedAt = &now
	c.Ledger.FinishSeq = runread.NextSeq(tip)
	if f.Evidence != nil && f.Status == record.StatusUncertain {
		w := *f.Evidence
		w.Seq = c.Ledger.FinishSeq
		if w.At.IsZero() {
			w.At = now
		}
		c.Ledger.WindowEnd = &w
	}
	c.Ledger.Head = f.Head
	c.Ledger.Skipped = filepatch.Skipped(f.Snap)
	c.Ledger.ViewChanges = filepatch.ViewChanges(m.WS, log, tip, f.Snap, f.Patches)
	if f.Result != "" {
		c.Ledger.Result = f.Result
	}
	if f.ResultRef != "" {
		c.Ledger.ResultRef = f.ResultRef
	}
	if f.ExitCode != nil {
		c.Ledger.ExitCode = f.ExitCode
	}
	cp, err := f.checkpoint(record.KindCallFinish, tip, m)
	if err != nil {
		return nil, err
	}
	cp.CallID = callID
	return cp, nil
}

// AddBefore adds to started call callID of tip the before states of the
// paths it did not capture yet, and returns the checkpoint that records
// them. It returns ErrCallState for a call that captures the whole
// workspace.
func AddBefore(tip *patchstore.Run, callID record.CallID, states []record.PathState, m *filepatch.Maker) (*record.Checkpoint, error) {
	c, err := Started(tip, callID)
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
	cp, err := m.Partial(record.KindCallStart, tip, added)
	if err != nil {
		return nil, err
	}
	cp.CallID, cp.StepID = callID, tip.Checkpoint.StepID
	return cp, nil
}

// AddAfter merges into started call callID of tip the patches of paths
// and returns the checkpoint that records their after states.
func AddAfter(tip *patchstore.Run, callID record.CallID, patches []record.FilePatch, paths []string, after []record.PathState, m *filepatch.Maker) (*record.Checkpoint, error) {
	c, err := Started(tip, callID)
	if err != nil {
		return nil, err
	}
	c.Touch()
	c.Patches = filepatch.Merge(c.Patches, patches, paths)
	c.Ledger.Patches = len(c.Patches)
	cp, err := m.Partial(record.KindCallFinish, tip, after)
	if err != nil {
		return nil, err
	}
	cp.CallID, cp.StepID, cp.Label = callID, tip.Checkpoint.StepID, "captured after state"
	return cp, nil
}

// CaptureStart captures what a call's start records: nothing for a call
// recorded in the ledger only, the states of paths when it declares some,
// else a snapshot of the whole workspace.
func CaptureStart(ctx context.Context, m *filepatch.Maker, ledgerOnly bool, paths []string) (Capture, error) {
	switch {
	case ledgerOnly:
		return Capture{LedgerOnly: true}, nil
	case len(paths) > 0:
		states, err := m.Capture(paths)
		return Capture{States: states}, err
	}
	snap, err := m.WS.Snapshot(ctx)
	return Capture{Snap: snap}, err
}

// PathPatches captures the after state of paths, declared by call c, and
// diffs each against its before state. It returns ErrCallState for a path
// c did not capture at its start.
func PathPatches(m *filepatch.Maker, c *patchstore.Call, callID record.CallID, paths []string) ([]record.FilePatch, []record.PathState, error) {
	if err := Captured(c, callID, paths); err != nil {
		return nil, nil, err
	}
	return m.Paths(callID, c.Before, paths)
}
