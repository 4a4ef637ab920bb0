package gitguard

import (
	"context"
	"slices"

	"github.com/gitguard/gitguard/internal/callstate"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// CallPlan records a planned call in the ledger before anything runs:
// what tool, how safe it is to repeat, its side effects and how to
// compensate them. Planning a call again updates the plan.
func (g *Guard) CallPlan(ctx context.Context, runID record.RunID, o CallOptions) (*Run, error) {
	return runOf(g.callPlan(ctx, runID, o))
}

// callPlan is CallPlan with the store's run.
func (g *Guard) callPlan(ctx context.Context, runID record.RunID, o CallOptions) (*patchstore.Run, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	id, err := g.runFor(ctx, runID)
	if err != nil {
		return nil, err
	}
	return g.store.CommitCalls(ctx, id, []record.CallID{o.CallID}, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		cp, err := callstate.Plan(tip, o.entry(), g.now())
		if err != nil {
			return nil, err
		}
		o.Checkpoint.apply(cp, tip)
		return cp, nil
	})
}

// CallDecide records an approval or denial of a planned call.
func (g *Guard) CallDecide(ctx context.Context, runID record.RunID, callID record.CallID, approve bool, by, reason string) (*Run, error) {
	return runOf(g.callDecide(ctx, runID, callID, approve, by, reason))
}

// callDecide is CallDecide with the store's run.
func (g *Guard) callDecide(ctx context.Context, runID record.RunID, callID record.CallID, approve bool, by, reason string) (*patchstore.Run, error) {
	id, err := g.ResolveRun(ctx, runID, false)
	if err != nil {
		return nil, err
	}
	return g.store.CommitCalls(ctx, id, []record.CallID{callID}, func(tip *patchstore.Run) (*record.Checkpoint, error) {
		return callstate.Decide(tip, callID, approve, by, reason, g.now())
	})
}

// Ledger returns the run's calls, oldest first.
func (g *Guard) Ledger(ctx context.Context, runID record.RunID) (*Run, []*record.Call, error) {
	run, err := g.readRun(ctx, runID)
	if err != nil {
		return nil, nil, err
	}
	r := newRun(run)
	return r, record.OrderedCalls(r.Calls), nil
}

// LedgerEntries returns the run's ledger entries oldest first (see
// OrderedCalls), from the run index: without reading the calls' patches
// and states, so that listing a long run costs what its ledger holds.
func (g *Guard) LedgerEntries(ctx context.Context, runID record.RunID) (*Run, []record.LedgerEntry, error) {
	run, err := g.readRunHead(ctx, runID)
	if err != nil {
		return nil, nil, err
	}
	entries, err := g.store.LedgerEntries(run)
	if err != nil {
		return nil, nil, err
	}
	OrderEntries(entries)
	return newRun(run), entries, nil
}

// LedgerPage returns the ledger entries of the newest n calls of the run,
// oldest first, and whether the run has older calls. It reads the newest
// part of the run index and those calls' ledger entries, so a page costs
// the same however long the run.
func (g *Guard) LedgerPage(ctx context.Context, runID record.RunID, n int) (*Run, []record.LedgerEntry, bool, error) {
	run, ids, more, err := g.newestCalls(ctx, runID, n)
	if err != nil {
		return nil, nil, false, err
	}
	entries, err := g.store.LedgerOf(run, ids)
	return newRun(run), entries, more, err
}

// LedgerCallsPage is Ledger for the newest n calls of the run, oldest
// first, and whether the run has older calls.
func (g *Guard) LedgerCallsPage(ctx context.Context, runID record.RunID, n int) (*Run, []*record.Call, bool, error) {
	run, ids, more, err := g.newestCalls(ctx, runID, n)
	if err != nil {
		return nil, nil, false, err
	}
	if err := g.store.LoadIndexed(run, ids...); err != nil {
		return nil, nil, false, err
	}
	calls := make([]*record.Call, len(ids))
	for i, id := range ids {
		calls[i] = recordOf(run.Calls[id])
	}
	return newRun(run), calls, more, nil
}

// newestCalls reads the run's head and lists its newest n calls, oldest
// first.
func (g *Guard) newestCalls(ctx context.Context, runID record.RunID, n int) (*patchstore.Run, []record.CallID, bool, error) {
	run, err := g.readRunHead(ctx, runID)
	if err != nil {
		return nil, nil, false, err
	}
	ids, more, err := g.reader().Newest(run, n)
	return run, ids, more, err
}

// OrderEntries sorts ledger entries as OrderedCalls sorts calls.
func OrderEntries(entries []record.LedgerEntry) {
	slices.SortFunc(entries, func(a, b record.LedgerEntry) int {
		return patchstore.ComparePostings(
			patchstore.Posting{Call: a.CallID, Start: a.StartSeq, Finish: a.FinishSeq},
			patchstore.Posting{Call: b.CallID, Start: b.StartSeq, Finish: b.FinishSeq})
	})
}
