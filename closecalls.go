package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/record"
)

// Evidence is what shows that the calls left started in a run are over:
// their process stopped without recording their end (see
// record.WindowEnd; Kind is one of record.EvidenceSessionEvent,
// record.EvidenceNewSession, record.EvidenceAgentExit).
type Evidence = record.WindowEnd

// CloseOpenCalls marks the calls of run runID still started uncertain, on
// evidence ev that their process is over: a later hook event of their
// session, a new session of the same agent in the work tree, the exit of
// the agent gitguard wrapped. What changed from each one's start to the
// first evidence that it was over is attributed to it (an earlier
// checkpoint of the run, else ev: the checkpoint written now looks at the
// work tree), and that evidence is recorded as its window's end. Undo and
// redo calls, and the calls of except, are left started. It returns the
// calls it closed; a run that does not exist, or has no call open, costs
// one read of its newest record and records nothing. It writes to the
// repository only when it closes a call.
func (g *Guard) CloseOpenCalls(ctx context.Context, runID record.RunID, ev Evidence, except ...record.CallID) ([]record.CallID, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	return g.attributor().CloseOpen(ctx, runID, ev, g.now(), except...)
}

// RunsOf lists the runs of this work tree whose ids start with prefix
// (the runs of one agent's sessions) and are not finished, newest activity
// first. It reads each run's newest record.
func (g *Guard) RunsOf(ctx context.Context, prefix string) ([]record.RunID, error) {
	return runread.Unfinished(ctx, g.store, g.store.WorktreeName(), prefix)
}
