package maintenance

import (
	"context"
	"errors"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// Damaged is one damaged run and what the repair did with it.
type Damaged struct {
	Damage   *record.Damage
	Repaired bool
	KeptRef  string // a ref keeping a record of the damaged tip after a repair
	Err      error  // why the repair failed (patchstore.ErrUnrepairable: nothing is intact)
}

// Fsck checks every run in the repository: every checkpoint of its chain
// and every object the checkpoints name. With repair, each damaged run is
// re-pointed (compare-and-swap) at its newest checkpoint that is complete
// and has a complete history. It returns how many runs it checked and the
// damaged ones, by run id. Only refs under refs/agent-checkpoints/ change.
func (m *Maintainer) Fsck(ctx context.Context, repair bool) (int, []Damaged, error) {
	refs, err := m.Refs.List(ctx)
	if err != nil {
		return 0, nil, err
	}
	checked := 0
	var out []Damaged
	for _, ref := range refs {
		id, ok := gitrefs.ParseRunRef(ref.Name)
		if !ok {
			continue
		}
		checked++
		d, err := m.Store.CheckRun(ctx, id)
		if errors.Is(err, patchstore.ErrUnknownRun) {
			continue // deleted meanwhile
		}
		if err != nil {
			return 0, nil, err
		}
		if d == nil {
			continue
		}
		fd := Damaged{Damage: d}
		if repair {
			fd.KeptRef, fd.Err = m.Store.Repair(ctx, d)
			fd.Repaired = fd.Err == nil
		}
		out = append(out, fd)
	}
	return checked, out, nil
}

// CountRunRefs counts the run refs in the repository.
func (m *Maintainer) CountRunRefs(ctx context.Context) (int, error) {
	refs, err := m.Refs.List(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range refs {
		if _, ok := gitrefs.ParseRunRef(r.Name); ok {
			n++
		}
	}
	return n, nil
}
