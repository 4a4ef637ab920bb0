package gitguard

import (
	"context"
	"strings"

	"github.com/gitguard/gitguard/internal/ckptspec"
	"github.com/gitguard/gitguard/record"
)

// ErrAmbiguous is returned when a checkpoint id matches in several runs.
var ErrAmbiguous = ckptspec.ErrAmbiguous

// ResolveCheckpoint finds a checkpoint by its id (ckpt_007, or 7) in run
// (or the active run, or any run when there is none), by RUN/ckpt_007, or by
// its commit id (full or a prefix of at least 4 hex digits).
//
// The run the checkpoint belongs to is validated as every command reading
// a run validates it (its newest checkpoint's records, see validateRun).
func (g *Guard) ResolveCheckpoint(ctx context.Context, run record.RunID, spec string) (record.Entry, error) {
	en, err := g.resolveCheckpoint(ctx, run, spec)
	if err != nil {
		return en, err
	}
	if err := g.validateRun(ctx, en.Checkpoint.RunID); err != nil {
		return record.Entry{}, err
	}
	return en, nil
}

func (g *Guard) resolveCheckpoint(ctx context.Context, run record.RunID, spec string) (record.Entry, error) {
	if r, rest, ok := strings.Cut(spec, "/"); ok {
		id, err := record.ParseRunID(r)
		if err != nil {
			return record.Entry{}, usageErr(err)
		}
		run, spec = id, rest
	}
	return ckptspec.Resolve(ctx, g.store, g.repo, run, spec)
}
