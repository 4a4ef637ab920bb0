package gitguard

import (
	"context"
	"time"

	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/record"
)

// RunSummary is one run as a run picker lists it.
type RunSummary struct {
	ID          record.RunID
	Active      bool // the work tree's active run
	Finished    bool
	Checkpoints int
	// Tip is the run's newest checkpoint commit: it changes whenever the
	// run records anything, so comparing it is a cheap change check.
	Tip    record.Hash
	LastAt time.Time
}

// Runs lists every run of the repository, most recently active first. It
// reads one record per run and writes nothing.
func (g *Guard) Runs(ctx context.Context) ([]RunSummary, error) {
	active, err := g.ActiveRun()
	if err != nil {
		return nil, err
	}
	sums, err := runread.Summaries(ctx, g.store, active)
	if err != nil {
		return nil, err
	}
	out := make([]RunSummary, len(sums))
	for i, x := range sums {
		out[i] = RunSummary(x)
	}
	return out, nil
}
