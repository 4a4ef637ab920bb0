package gitguard

import (
	"context"
	"fmt"
	"strings"

	"github.com/gitguard/gitguard/record"
)

// OtherChange is a change in the work tree that a call of another run made.
type OtherChange struct {
	Path string
	By   record.CallRef
	// SeenBy is this run's shell call in whose window it was made, if any.
	SeenBy record.CallID
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
	walked, err := g.store.NewestWhere(ctx, r.Run, func(cp *record.Checkpoint) bool {
		return !cp.Partial && cp.Kind != record.KindLedger
	})
	if err != nil {
		return err
	}
	peers, err := g.peerCalls(ctx, record.CallRef{Run: r.Run}, walked.Checkpoint.CreatedAt)
	if err != nil {
		return err
	}
	var left []record.Change
	for _, c := range r.Unrecorded {
		var by *record.CallRef
		for _, q := range peers {
			if q.ref.Run == r.Run {
				continue
			}
			if p := q.patch(c.Path); p != nil && p.After() == state(c.After) {
				by = &q.ref // the newest such call, as peers are ordered
			}
		}
		if by == nil {
			left = append(left, c)
			continue
		}
		r.FromOthers = append(r.FromOthers, OtherChange{Path: c.Path, By: *by})
	}
	r.Unrecorded = left
	return nil
}

// parallelLines writes the brief's lines about other sessions.
func (r *Resume) parallelLines(b *strings.Builder) {
	for _, o := range r.FromOthers {
		fmt.Fprintf(b, "- %s was changed by call %s of run %s, another session in this work tree: not this run's change; leave it to that session.\n", o.Path, o.By.Call, o.By.Run)
	}
	for _, p := range r.Paths {
		if len(p.SharedWith) == 0 {
			continue
		}
		var with []string
		for _, w := range p.SharedWith {
			with = append(with, fmt.Sprintf("call %s of run %s", w.Call, w.Run))
		}
		fmt.Fprintf(b, "- %s changed while %s and %s of another session both ran; either may have made the change (shared), so undo leaves it as it is.\n", p.Path, p.Call, strings.Join(with, ", "))
	}
	for _, o := range r.OpenElsewhere {
		fmt.Fprintf(b, "- Call %s of run %s, another session, is running in this work tree now: files may change under you.\n", o.Call, o.Run)
	}
}
