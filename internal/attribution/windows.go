package attribution

import (
	"context"
	"errors"
	"time"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// Window is when a run was active, for telling which runs of a work tree
// ran at once.
type Window struct {
	Info patchstore.RunInfo
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

// Windows lists every run of the repository, newest activity first, with
// its window and the runs of the same work tree active at the same time.
// It reads each run's newest record, and the chain back to the first only
// for runs recorded by older versions.
func Windows(ctx context.Context, store *patchstore.Store) ([]Window, error) {
	infos, err := store.ListRuns(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Window, 0, len(infos))
	for _, info := range infos {
		w := Window{Info: info, Start: info.Last.RunStartedAt, Open: info.Last.Open}
		w.End = patchstore.FinishedAt(info.Last) // an undo after the finish keeps it
		if w.Start.IsZero() {
			hist, err := store.History(ctx, info.ID, 0)
			if err != nil && !errors.Is(err, patchstore.ErrUnknownRun) {
				return nil, err
			}
			if n := len(hist); n > 0 {
				w.Start = hist[n-1].Checkpoint.CreatedAt
			}
		}
		out = append(out, w)
	}
	for i := range out {
		for j := range out {
			a, b := &out[i], &out[j]
			if i != j && a.Info.Last.Worktree == b.Info.Last.Worktree && overlap(a, b) {
				a.Overlaps = append(a.Overlaps, b.Info.ID)
			}
		}
	}
	return out, nil
}

// overlap reports whether two windows share a moment; an open end is now.
func overlap(a, b *Window) bool {
	aEnd, bEnd := a.End, b.End
	return (aEnd.IsZero() || !aEnd.Before(b.Start)) && (bEnd.IsZero() || !bEnd.Before(a.Start))
}
