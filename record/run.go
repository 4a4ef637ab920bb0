package record

import (
	"sort"
	"time"
)

// RunInfo summarises one run for listings: its newest checkpoint.
type RunInfo struct {
	ID          RunID
	Tip         Hash // the run ref's commit
	Checkpoints int  // the newest checkpoint's sequence number
	Last        *Checkpoint
	Finished    bool
}

// Entry is one checkpoint of a run's history: its commit and its record.
type Entry struct {
	Commit     Hash
	Checkpoint *Checkpoint
}

// Call is everything recorded about one tool call: its ledger entry, its
// file patches, the before states of its declared paths, and the changes
// other calls made inside its window (Others, each with OwnedBy set; never
// undone with it).
type Call struct {
	Ledger  LedgerEntry
	Patches []FilePatch
	Before  []PathState
	Others  []FilePatch
}

// SortCalls orders calls by when they were first recorded (planned,
// started or finished), then by id.
func SortCalls(calls []*Call) {
	sort.Slice(calls, func(i, j int) bool {
		ti, tj := firstTime(&calls[i].Ledger), firstTime(&calls[j].Ledger)
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return calls[i].Ledger.CallID < calls[j].Ledger.CallID
	})
}

// firstTime is when an entry was first recorded.
func firstTime(e *LedgerEntry) time.Time {
	for _, t := range []*time.Time{e.PlannedAt, e.StartedAt, e.FinishedAt} {
		if t != nil {
			return *t
		}
	}
	return time.Time{}
}

// Record returns the call itself: a type that embeds Call (the store's)
// hands out its record with it.
func (c *Call) Record() *Call { return c }
