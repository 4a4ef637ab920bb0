package runsync

import (
	"context"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// RunsInPush returns the runs whose work is in the commits that updates
// send: those whose newest checkpoint names as HEAD a commit being pushed
// or one the pushed commits grow from, and those whose HEAD is older than
// that but which recorded after the commit the pushed ones grow from was
// made. It reads the runs' newest checkpoint records and writes nothing.
func RunsInPush(ctx context.Context, store *patchstore.Store, refs *gitrefs.Store, updates []gitrefs.PushUpdate) ([]record.RunID, error) {
	sent, boundary, err := refs.PushedCommits(ctx, updates)
	if err != nil {
		return nil, err
	}
	if len(sent) == 0 {
		return nil, nil
	}
	infos, err := store.ListRuns(ctx)
	if err != nil {
		return nil, err
	}
	var ids []record.RunID
	for _, i := range infos {
		if i.Last == nil || i.Last.Head.Commit.IsZero() {
			continue
		}
		h := i.Last.Head.Commit
		if _, ok := sent[h]; ok {
			ids = append(ids, i.ID)
			continue
		}
		if _, ok := boundary[h]; ok {
			ids = append(ids, i.ID)
			continue
		}
		for b, at := range boundary {
			if i.Last.CreatedAt.Before(at) {
				continue // its newest work is older than what the remote has
			}
			if in, err := refs.IsAncestor(ctx, h, b); err != nil {
				return nil, err
			} else if in {
				ids = append(ids, i.ID)
				break
			}
		}
	}
	return ids, nil
}
