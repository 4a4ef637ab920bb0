package gitguard

import (
	"errors"
	"fmt"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// finishedAgain decides a finish of a call that is no longer started (err
// is why readStartedCall refused it). A runtime that retries a finish it
// is not sure went through (its process was killed after the record, a
// hook ran twice) must converge: the same status again is a no-op that
// returns the run as it is. Another status, or a call that never started,
// stays an error that says what the call is.
func finishedAgain(run *patchstore.Run, callID record.CallID, status record.Status, err error) (bool, error) {
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
		callID, c.Ledger.Status, record.CheckpointID(c.Ledger.FinishSeq), status, ErrCallState)
}
