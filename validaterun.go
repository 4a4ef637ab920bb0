package gitguard

import (
	"context"
	"errors"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// validateRun reads what status reads of run id's newest checkpoint (the
// checkpoint, its commit and its link to the previous one, the run index
// and the newest calls per path), which validates them as status does: log
// and show, which print from the checkpoint records alone, refuse a
// planted or corrupt run just as status does, at the cost of a status
// without hashing, however long the run. A run that does not exist is left
// to the caller to report.
func (g *Guard) validateRun(ctx context.Context, id record.RunID) error {
	if id == "" {
		return nil
	}
	run, err := g.readRunHead(ctx, id)
	if errors.Is(err, patchstore.ErrUnknownRun) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = g.reader().StatusCalls(run)
	return err
}
