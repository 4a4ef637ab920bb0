package gitguard

import (
	"context"
	"fmt"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/record"
)

// RunsInPush returns the runs whose work is in the commits a user's push
// sends, given what git tells a pre-push hook on its standard input
// (lines of "<local ref> <local oid> <remote ref> <remote oid>"): those
// whose newest checkpoint names as HEAD a commit being pushed (the agent
// committed, or recorded on top of a commit being pushed) or one the pushed
// commits grow from (the user committed the agent's work after its last
// checkpoint), and those whose HEAD is older than that but which recorded
// after the commit the pushed ones grow from was made (a call that declares
// its paths keeps the HEAD its run saw last). A push of gitguard's own refs
// names no run. It
// reads the runs' newest checkpoint records and writes nothing. Input it
// cannot read is ErrUsage.
func (g *Guard) RunsInPush(ctx context.Context, hookInput []byte) ([]record.RunID, error) {
	updates, err := gitrefs.ParsePushUpdates(hookInput)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	sent, boundary, err := g.refs.PushedCommits(ctx, updates)
	if err != nil {
		return nil, err
	}
	if len(sent) == 0 {
		return nil, nil
	}
	infos, err := g.store.ListRuns(ctx)
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
			if in, err := g.refs.IsAncestor(ctx, h, b); err != nil {
				return nil, err
			} else if in {
				ids = append(ids, i.ID)
				break
			}
		}
	}
	return ids, nil
}
