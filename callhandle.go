package gitguard

import (
	"context"
	"fmt"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// Call is a started tool call, as a handle: it remembers the run the call
// was recorded into, so an agent runtime that embeds gitguard need not
// carry the run id and call id around separately. It is a thin layer over
// CaptureBefore, CaptureAfter and CallFinish and has their guarantees; like
// the Guard it belongs to, it is not safe for concurrent use.
type Call struct {
	g *Guard
	// Run is the id of the run the call is recorded in.
	Run record.RunID
	// ID is the call's id.
	ID record.CallID
}

// BeginCall is CallStart returning a handle. runID may be empty: the call
// goes into the active run, or a new active run when there is none. The
// before state is durable when it returns, so the tool may run.
func (g *Guard) BeginCall(ctx context.Context, runID record.RunID, o CallOptions) (*Call, error) {
	run, err := g.CallStart(ctx, runID, o)
	if err != nil {
		return nil, err
	}
	return &Call{g: g, Run: run.ID, ID: o.CallID}, nil
}

// CaptureBefore records the current state of paths as their before state;
// call it before writing a file the call did not declare when it began.
// It returns ErrCallState for a call that captures the whole workspace.
func (c *Call) CaptureBefore(ctx context.Context, paths ...string) error {
	_, err := c.g.CaptureBefore(ctx, c.Run, c.ID, paths...)
	return err
}

// CaptureAfter makes the patches of paths durable now, before the call
// finishes; Finish captures every declared path again.
func (c *Call) CaptureAfter(ctx context.Context, paths ...string) error {
	_, err := c.g.CaptureAfter(ctx, c.Run, c.ID, paths...)
	return err
}

// Finish records how the call ended and the patches it made, and returns
// them (nil when the call changed nothing).
func (c *Call) Finish(ctx context.Context, o FinishOptions) ([]record.FilePatch, error) {
	run, err := c.g.CallFinish(ctx, c.Run, c.ID, o)
	if err != nil {
		return nil, err
	}
	return run.Calls[c.ID].Patches, nil
}

// DoCall runs fn as tool call o: it records the start (before fn runs),
// runs fn, and records the finish with status succeeded, or failed with
// fn's error as the result. If fn panics the call is finished as uncertain
// and the panic goes on. An error from fn is returned as it is, joined with
// any error recording the finish.
func (g *Guard) DoCall(ctx context.Context, runID record.RunID, o CallOptions, fn func(context.Context) error) (patches []record.FilePatch, err error) {
	c, err := g.BeginCall(ctx, runID, o)
	if err != nil {
		return nil, err
	}
	finished := false
	defer func() {
		if finished {
			return
		}
		// fn panicked: the tool may or may not have done its work.
		_, _ = c.Finish(context.WithoutCancel(ctx), FinishOptions{Status: record.StatusUncertain, Result: "the tool panicked"})
	}()
	ferr := fn(ctx)
	finished = true
	fo := FinishOptions{Status: record.StatusSucceeded}
	if ferr != nil {
		fo = FinishOptions{Status: record.StatusFailed, Result: ferr.Error()}
	}
	// The finish must be recorded even when fn's failure was a cancellation.
	patches, err = c.Finish(context.WithoutCancel(ctx), fo)
	if ferr != nil {
		if err != nil {
			return patches, fmt.Errorf("%w (and recording the call's end: %w)", ferr, err)
		}
		return patches, ferr
	}
	return patches, err
}

// CallRecord records in the ledger a call that already ran and whose start
// was never recorded (an agent hook that missed the "before" event): its
// start and finish, with no file captured. The call's file changes, if it
// made any, are therefore not its patches; they stay visible as unrecorded
// changes in Status until a later call or snapshot records them. It returns
// ErrCallState if the call is already recorded past planning.
func (g *Guard) CallRecord(ctx context.Context, runID record.RunID, o CallOptions, f FinishOptions) (*Run, error) {
	return runOf(g.callRecord(ctx, runID, o, f))
}

// callRecord is CallRecord with the store's run.
func (g *Guard) callRecord(ctx context.Context, runID record.RunID, o CallOptions, f FinishOptions) (*patchstore.Run, error) {
	o.Paths, o.Globs, o.ledgerOnly = nil, nil, true
	run, err := g.CallStart(ctx, runID, o)
	if err != nil {
		return nil, err
	}
	return g.callFinish(ctx, run.ID, o.CallID, f, nil, nil)
}
