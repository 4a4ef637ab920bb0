package gitguard

import (
	"context"
	"errors"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/patchstore/record"
)

// validateRun reads run id's newest checkpoint with every call's records,
// which validates them as status, undo and resume do (records, the tip's
// commit and its link to the previous checkpoint): log and show, which
// print from the checkpoint records alone, refuse a planted or corrupt run
// just as the others do. Its cost is that of one status without hashing;
// a run that does not exist is left to the caller to report.
func (g *Guard) validateRun(ctx context.Context, id record.RunID) error {
	if id == "" {
		return nil
	}
	_, err := g.store.ReadRun(ctx, id)
	if errors.Is(err, patchstore.ErrUnknownRun) {
		return nil
	}
	return err
}
