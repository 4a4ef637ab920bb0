package runsync

import (
	"context"
	"fmt"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// PublishCopy makes run as a copy of run id as it stands here (every
// checkpoint again under the new id, naming id and its tip as its
// origin), or, with dryRun, only checks that it could. It returns id's
// tip; patchstore.ErrUnknownRun when id does not exist and
// patchstore.ErrRunExists when as is taken. Run id is not changed.
func PublishCopy(ctx context.Context, store *patchstore.Store, refs *gitrefs.Store, id, as record.RunID, dryRun bool) (record.Hash, error) {
	tip, err := tipOf(ctx, refs, id)
	if err != nil {
		return tip, err
	}
	if !dryRun {
		_, err := store.Fork(ctx, id, tip, as, string(id)+" "+tip.String())
		return tip, err
	}
	if err := as.Validate(); err != nil {
		return tip, err
	}
	if h, err := refs.Read(ctx, gitrefs.RunRef(as)); err != nil {
		return tip, err
	} else if !h.IsZero() {
		return tip, fmt.Errorf("publish run %s as %s: %w", id, as, patchstore.ErrRunExists)
	}
	return tip, nil
}

// tipOf reads run id's tip; patchstore.ErrUnknownRun when there is none.
func tipOf(ctx context.Context, refs *gitrefs.Store, id record.RunID) (record.Hash, error) {
	tip, err := refs.Read(ctx, gitrefs.RunRef(id))
	if err == nil && tip.IsZero() {
		err = fmt.Errorf("run %q: %w", id, patchstore.ErrUnknownRun)
	}
	return tip, err
}

// Verify checks run id from its tip back to its first checkpoint as
// records fetched from elsewhere are checked (patchstore.Store.VerifyRun).
// It returns patchstore.ErrUnknownRun when the run does not exist.
func Verify(ctx context.Context, store *patchstore.Store, refs *gitrefs.Store, id record.RunID) error {
	tip, err := tipOf(ctx, refs, id)
	if err != nil {
		return err
	}
	return store.VerifyRun(ctx, id, tip)
}
