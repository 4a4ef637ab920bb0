package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// ErrDamaged is returned when a run's checkpoint names missing objects
// and there is no intact checkpoint to read instead, or for a writer,
// which does not record on top of a damaged checkpoint: 'gitguard fsck
// --repair' re-points the run at its newest intact checkpoint.
var ErrDamaged = patchstore.ErrDamaged

// ErrUnrepairable is returned by Fsck with Repair for a damaged run with
// no intact checkpoint.
var ErrUnrepairable = patchstore.ErrUnrepairable

// FsckOptions configures Fsck.
type FsckOptions struct {
	// Repair re-points each damaged run at its newest intact checkpoint.
	Repair bool
}

// FsckReport is the outcome of Fsck.
type FsckReport struct {
	Checked int          // runs checked
	Damaged []FsckDamage // damaged runs, by run id
}

// FsckDamage is one damaged run and what the repair did with it.
type FsckDamage struct {
	*record.Damage
	Repaired bool
	// KeptRef keeps a record of the damaged tip after a repair: a ref to
	// a blob naming the old tip and what it lacked (not to the commit,
	// which would make git gc walk into the missing objects and fail).
	KeptRef string
	// Err is why the repair failed (ErrUnrepairable: nothing is intact).
	Err error
}

// Fsck checks every run in the repository: every checkpoint of its chain
// and every object the checkpoints name. With Repair, each damaged run
// is re-pointed (compare-and-swap) at its newest checkpoint that is
// complete and has a complete history, after which git gc walks only
// complete data again. Only refs under refs/agent-checkpoints/ change.
func (g *Guard) Fsck(ctx context.Context, opts FsckOptions) (*FsckReport, error) {
	n, damaged, err := g.maintainer().Fsck(ctx, opts.Repair)
	if err != nil {
		return nil, err
	}
	rep := &FsckReport{Checked: n}
	for _, d := range damaged {
		rep.Damaged = append(rep.Damaged, FsckDamage{Damage: d.Damage, Repaired: d.Repaired, KeptRef: d.KeptRef, Err: d.Err})
	}
	return rep, nil
}
