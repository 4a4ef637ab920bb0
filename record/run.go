package record

import (
	"math"
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

// CallOrder sorts calls oldest first: by the checkpoint that finished them,
// unfinished ones last, by start.
func CallOrder(c *Call) (int, int) {
	f := c.Ledger.FinishSeq
	if f == 0 {
		f = math.MaxInt
	}
	return f, c.Ledger.StartSeq
}

// Recorded is a call's record, or a type that embeds it (the store's call).
type Recorded interface{ Record() *Call }

// OrderedCalls returns the calls oldest first (see CallOrder).
func OrderedCalls[C Recorded](m map[CallID]C) []C {
	calls := make([]C, 0, len(m))
	for _, c := range m {
		calls = append(calls, c)
	}
	sort.Slice(calls, func(i, j int) bool {
		fi, si := CallOrder(calls[i].Record())
		fj, sj := CallOrder(calls[j].Record())
		if fi != fj {
			return fi < fj
		}
		if si != sj {
			return si < sj
		}
		return calls[i].Record().Ledger.CallID < calls[j].Record().Ledger.CallID
	})
	return calls
}
