package attribution

import (
	"context"

	"github.com/gitguard/gitguard/record"
)

// Other is a change in the work tree that a call of another run made.
type Other struct {
	Path string
	By   record.CallRef
}

// OthersOf finds, among the changes run has not recorded (unrecorded),
// those a call of another run of the work tree recorded since run's newest
// full snapshot: it returns them, by the newest such call, and the changes
// no call of another run explains.
func (a *Attributor) OthersOf(ctx context.Context, run record.RunID, unrecorded []record.Change) ([]Other, []record.Change, error) {
	if len(unrecorded) == 0 {
		return nil, nil, nil
	}
	walked, err := a.Store.NewestWhere(ctx, run, func(cp *record.Checkpoint) bool {
		return !cp.Partial && cp.Kind != record.KindLedger
	})
	if err != nil {
		return nil, nil, err
	}
	peers, err := a.peerCalls(ctx, record.CallRef{Run: run}, walked.Checkpoint.CreatedAt)
	if err != nil {
		return nil, nil, err
	}
	var from []Other
	var left []record.Change
	for _, c := range unrecorded {
		var by *record.CallRef
		for _, q := range peers {
			if q.ref.Run == run {
				continue
			}
			if p := q.patch(c.Path); p != nil && p.After() == c.After.State() {
				by = &q.ref // the newest such call, as peers are ordered
			}
		}
		if by == nil {
			left = append(left, c)
			continue
		}
		from = append(from, Other{Path: c.Path, By: *by})
	}
	return from, left, nil
}
