package gitguard

import (
	"context"
	"errors"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/patchstore"
)

// Damage describes a run whose checkpoints name objects the repository
// lacks (see patchstore.Damage).
type Damage = patchstore.Damage

// Missing is one object a damaged checkpoint names.
type Missing = patchstore.Missing

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
	*Damage
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
	refs, err := g.refs.List(ctx)
	if err != nil {
		return nil, err
	}
	rep := &FsckReport{}
	for _, ref := range refs {
		id, ok := gitrefs.ParseRunRef(ref.Name)
		if !ok {
			continue
		}
		rep.Checked++
		d, err := g.store.CheckRun(ctx, id)
		if errors.Is(err, patchstore.ErrUnknownRun) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		if d == nil {
			continue
		}
		fd := FsckDamage{Damage: d}
		if opts.Repair {
			fd.KeptRef, fd.Err = g.store.Repair(ctx, d)
			fd.Repaired = fd.Err == nil
		}
		rep.Damaged = append(rep.Damaged, fd)
	}
	return rep, nil
}
