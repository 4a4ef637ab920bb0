package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/internal/attribution"
	"github.com/gitguard/gitguard/record"
)

// OtherChange is a change in the work tree that a call of another run made.
type OtherChange struct {
	Path string
	By   record.CallRef
	// SeenBy is this run's shell call in whose window it was made, if any.
	SeenBy record.CallID
}

// attributor reads the runs of this work tree to attribute changes.
func (g *Guard) attributor() *attribution.Attributor {
	return &attribution.Attributor{DB: g.db, Store: g.store, Refs: g.refs, WS: g.ws, Log: g.log, Patches: g.maker()}
}

// OpenElsewhere returns the calls of runs other than run, in this work
// tree, that are started and not finished right now, oldest start first.
// It reads each run's newest record and the open calls it lists.
func (g *Guard) OpenElsewhere(ctx context.Context, run record.RunID) ([]record.CallRef, error) {
	return g.attributor().OpenElsewhere(ctx, run)
}

// resumeParallel adds to r what other sessions of the work tree did: the
// changes this run's shell calls saw them make, the unrecorded changes a
// call of another run recorded (taken out of r.Unrecorded), and the calls
// of other runs open now.
func (g *Guard) resumeParallel(ctx context.Context, r *Resume, st *StatusReport) error {
	for _, o := range st.Others {
		r.FromOthers = append(r.FromOthers, OtherChange{Path: o.Path, By: *o.OwnedBy, SeenBy: o.ToolCallID})
	}
	r.OpenElsewhere = st.OpenElsewhere
	if len(r.Unrecorded) == 0 {
		return nil
	}
	from, left, err := g.attributor().OthersOf(ctx, r.Run, r.Unrecorded)
	if err != nil {
		return err
	}
	for _, o := range from {
		r.FromOthers = append(r.FromOthers, OtherChange{Path: o.Path, By: o.By})
	}
	r.Unrecorded = left
	return nil
}
