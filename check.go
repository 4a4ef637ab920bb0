package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/internal/drift"
	"github.com/gitguard/gitguard/record"
)

// Drift is one path that differs from the last checkpoint.
type Drift struct {
	Change record.Change
	// Call is a started call whose capture covers the path: the change is
	// being recorded, it is just not finished yet.
	Call record.CallID
}

// CheckReport is the result of Check.
type CheckReport struct {
	Run        record.RunID // empty when no run is active: nothing to check
	Checkpoint record.Entry
	Staged     bool
	Drift      []Drift
	// Git is the merge, rebase or other operation in progress; with Staged,
	// paths staged with the content the operation brings in are not drift.
	Git *GitOperation
	// ViewChanges are the calls that changed what gitguard sees; ViewNow
	// names what differs now from the view the run started with, whoever
	// changed it (not with Staged). The run still sees as it started.
	ViewChanges []ViewChange
	ViewNow     []string
}

// Check compares the work tree (with staged, the changes staged in the
// index) against the newest checkpoint of the run. With no run given and
// none active it reports nothing. It writes no file and no ref.
func (g *Guard) Check(ctx context.Context, runID record.RunID, staged bool) (*CheckReport, error) {
	if err := g.needWorkTree(); err != nil {
		return nil, err
	}
	id, err := g.ResolveRun(ctx, runID, true)
	if err != nil || id == "" {
		return &CheckReport{Staged: staged}, err
	}
	run, err := g.store.ReadRun(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := g.useRunSettings(ctx, run.Checkpoint); err != nil {
		return nil, err
	}
	rep := &CheckReport{Run: id, Checkpoint: record.Entry{Commit: run.Commit, Checkpoint: run.Checkpoint}, Staged: staged}
	found, err := (&drift.Checker{DB: g.db, WS: g.ws, Sources: g.planner().Sources(ctx)}).Check(ctx, run, staged)
	if err != nil {
		return nil, err
	}
	rep.Git, rep.ViewNow = (*GitOperation)(found.Git), found.ViewNow
	for _, c := range found.Changes {
		rep.Drift = append(rep.Drift, Drift{Change: c, Call: drift.CoveringCall(run, c.Path)})
	}
	rep.ViewChanges = viewChangesOf(record.OrderedCalls(run.Calls))
	return rep, nil
}
