// Package callstate holds the steps of a recorded call's life: which steps
// the state it is in allows (finishing a started call, finishing one
// again, capturing the after state of a path captured at its start), and
// the records each step leaves (plan, decide, start, capture, finish) on
// the tip of its run that a commit hands it.
//
// Invariants: the checks read the records they are given and change
// nothing; the steps change only the tip they are given and write only
// objects (overlaid trees, through filepatch.Maker), never a ref: the
// caller commits the checkpoint a step returns; every refusal wraps
// ErrCallState (or patchstore.ErrUnknownCall) and says what the call is.
package callstate

import (
	"errors"
	"fmt"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// ErrCallState is returned when a call is not in a state that allows the
// operation (finishing a call that never started, starting one twice,
// starting a denied one).
var ErrCallState = errors.New("call is in the wrong state")

// Started returns call callID of tip when it is started (or found started
// by a resume whose process was only slow), else an error wrapping
// ErrCallState, or patchstore.ErrUnknownCall when there is no such call.
func Started(tip *patchstore.Run, callID record.CallID) (*patchstore.Call, error) {
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

// Captured checks that c captured each of paths at its start: an after
// state means nothing without a before state.
func Captured(c *patchstore.Call, callID record.CallID, paths []string) error {
	before := map[string]record.PathState{}
	for _, b := range c.Before {
		before[b.Path] = b
	}
	for _, p := range paths {
		if _, ok := before[p]; !ok {
			return fmt.Errorf("%s was not captured when call %s started; capture its before state first: %w", p, callID, ErrCallState)
		}
	}
	return nil
}

// FinishedAgain decides a finish of a call that is no longer started (err
// is why Started refused it). A runtime that retries a finish it
// is not sure went through (its process was killed after the record, a
// hook ran twice) must converge: the same status again is a no-op that
// returns the run as it is. Another status, or a call that never started,
// stays an error that says what the call is.
func FinishedAgain(run *patchstore.Run, callID record.CallID, status record.Status, err error) (bool, error) {
	if run == nil || !errors.Is(err, ErrCallState) {
		return false, err
	}
	c := run.Calls[callID]
	if c == nil || c.Ledger.FinishedAt == nil || !c.Ledger.Status.Finished() {
		return false, err
	}
	if c.Ledger.Status == status {
		return true, nil
	}
	return true, fmt.Errorf("call %s already finished as %s at %s; it cannot be finished again as %s: %w",
		callID, c.Ledger.Status, record.NewCheckpointID(c.Ledger.FinishSeq), status, ErrCallState)
}
