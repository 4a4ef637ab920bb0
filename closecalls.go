package gitguard

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/gitguard/gitguard/patchstore"
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
	run, err := g.store.ReadRunCalls(ctx, runID)
	if errors.Is(err, patchstore.ErrUnknownRun) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var open []record.CallID
	if run.Checkpoint.OpenKnown {
		open = run.Checkpoint.Open
	} else {
		entries, err := g.store.LedgerEntries(run)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Status == record.StatusStarted {
				open = append(open, e.CallID)
			}
		}
	}
	open = slices.DeleteFunc(slices.Clone(open), func(id record.CallID) bool { return slices.Contains(except, id) })
	if len(open) == 0 || run.Damage != nil {
		return nil, nil
	}
	if err := g.store.LoadCalls(run, open...); err != nil {
		return nil, err
	}
	var ids []record.CallID
	for _, id := range open {
		c := run.Calls[id]
		if c != nil && c.Ledger.Status == record.StatusStarted && c.Ledger.ToolName != ToolUndo && c.Ledger.ToolName != ToolRedo {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	slices.Sort(ids)
	if ev.At.IsZero() {
		ev.At = g.now()
	}
	ev.What = strings.TrimSpace(ev.What)
	if ev.What == "" {
		ev.What = ev.Kind
	}
	if _, err := g.attributor().MarkKilled(ctx, run, ids, &ev); err != nil {
		return nil, err
	}
	return ids, nil
}

// RunsOf lists the runs of this work tree whose ids start with prefix
// (the runs of one agent's sessions) and are not finished, newest activity
// first. It reads each run's newest record.
func (g *Guard) RunsOf(ctx context.Context, prefix string) ([]record.RunID, error) {
	infos, err := g.store.ListRuns(ctx)
	if err != nil {
		return nil, err
	}
	wt := g.store.WorktreeName()
	var out []record.RunID
	for _, info := range infos {
		if strings.HasPrefix(string(info.ID), prefix) && !info.Finished && info.Last.Worktree == wt {
			out = append(out, info.ID)
		}
	}
	return out, nil
}
