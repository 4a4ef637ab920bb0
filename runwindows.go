package gitguard

import (
	"context"
	"time"

	"github.com/gitguard/gitguard/internal/attribution"
	"github.com/gitguard/gitguard/record"
)

// RunWindow is when a run was active, for telling which runs of a work tree
// ran at once.
type RunWindow struct {
	record.RunInfo
	// Start is when the run's first checkpoint was recorded; End when it
	// was finished, or zero while it is not (it is active).
	Start, End time.Time
	// Open are the run's calls started and not finished (nil when its
	// records do not say).
	Open []record.CallID
	// Overlaps names the runs of the same work tree whose windows overlap
	// this one's.
	Overlaps []record.RunID
}

// Active reports whether the run is not finished.
func (w *RunWindow) Active() bool { return !w.Finished }

// RunWindows lists every run of the repository, newest activity first, with
// its window and the runs of the same work tree active at the same time.
// It reads each run's newest record, and the chain back to the first only
// for runs recorded by older versions.
func (g *Guard) RunWindows(ctx context.Context) ([]RunWindow, error) {
	ws, err := attribution.Windows(ctx, g.store)
	if err != nil {
		return nil, err
	}
	out := make([]RunWindow, len(ws))
	for i, w := range ws {
		out[i] = RunWindow{RunInfo: w.Info, Start: w.Start, End: w.End, Open: w.Open, Overlaps: w.Overlaps}
	}
	return out, nil
}
