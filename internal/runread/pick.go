package runread

import (
	"context"
	"slices"
	"time"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// Unfinished lists the runs of work tree wt whose ids start with prefix
// and are not finished, newest activity first. It reads the tip commit of
// each run with the prefix, and the newest record of those not finished.
func Unfinished(ctx context.Context, store *patchstore.Store, wt, prefix string) ([]record.RunID, error) {
	infos, err := store.ListUnfinishedRuns(ctx, prefix)
	if err != nil {
		return nil, err
	}
	var out []record.RunID
	for _, info := range infos {
		if info.Last.Worktree == wt {
			out = append(out, info.ID)
		}
	}
	return out, nil
}

// Newest is the run of a work tree that ended last, and the others that
// ended with it.
type Newest struct {
	ID record.RunID
	// EndedAt is when it finished, or was last recorded when it did not.
	EndedAt time.Time
	// EndedWith are the other runs that ended within sameEnd of it, and
	// not before it started; sorted.
	EndedWith []record.RunID
}

// NewestRun picks the run of work tree wt that finished last (or was last
// recorded, when it did not finish), with the runs that ended within
// sameEnd of it. It returns false when wt has no run. It reads each run's
// newest record.
func NewestRun(ctx context.Context, store *patchstore.Store, wt string, sameEnd time.Duration) (Newest, bool, error) {
	infos, err := store.ListRuns(ctx)
	if err != nil {
		return Newest{}, false, err
	}
	type ended struct {
		id        record.RunID
		start, at time.Time
	}
	var runs []ended
	for _, info := range infos {
		if info.Last.Worktree != wt {
			continue
		}
		at := patchstore.FinishedAt(info.Last)
		if at.IsZero() {
			at = info.Last.CreatedAt
		}
		runs = append(runs, ended{info.ID, info.Last.RunStartedAt, at})
	}
	if len(runs) == 0 {
		return Newest{}, false, nil
	}
	best := runs[0]
	for _, r := range runs[1:] {
		if r.at.After(best.at) || (r.at.Equal(best.at) && r.id > best.id) {
			best = r
		}
	}
	n := Newest{ID: best.id, EndedAt: best.at}
	for _, r := range runs {
		if r.id != best.id && best.at.Sub(r.at) <= sameEnd && !r.at.Before(best.start) {
			n.EndedWith = append(n.EndedWith, r.id)
		}
	}
	slices.Sort(n.EndedWith)
	return n, true, nil
}

// LastStep is the step of the newest call of entries that finished
// (succeeded or failed), not of a call still in flight when the run
// stopped; step when none did.
func LastStep(entries []record.LedgerEntry, step string) string {
	best := 0
	for _, e := range entries {
		if s := e.Status; (s == record.StatusSucceeded || s == record.StatusFailed) &&
			e.StepID != "" && e.FinishSeq > best {
			best, step = e.FinishSeq, e.StepID
		}
	}
	return step
}

// LastWalk is the newest checkpoint of run id that looked at the whole
// work tree (not a partial capture, not a ledger change).
func LastWalk(ctx context.Context, store *patchstore.Store, id record.RunID) (record.CheckpointID, error) {
	walked, err := store.NewestWhere(ctx, id, func(cp *record.Checkpoint) bool {
		return !cp.Partial && cp.Kind != record.KindLedger
	})
	if err != nil {
		return "", err
	}
	return walked.Checkpoint.ID, nil
}

// Tips returns every ref under refs/agent-checkpoints/ and the commit or
// object it points at.
func Tips(ctx context.Context, refs *gitrefs.Store) (map[string]record.Hash, error) {
	list, err := refs.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]record.Hash, len(list))
	for _, r := range list {
		out[r.Name] = r.Hash
	}
	return out, nil
}
