package gitguard

import (
	"context"
	"fmt"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/runsync"
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
	return runsync.RunsInPush(ctx, g.store, g.refs, updates)
}
