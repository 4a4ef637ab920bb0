// Package runsync brings runs from a remote into this repository safely:
// it fetches them into a quarantine namespace, verifies each chain
// completely, and moves each good run's ref by compare-and-swap. It also
// tells which runs a user's push carries (for the pre-push hook) and
// copies a run under a new id to publish it beside a remote copy that
// moved on.
//
// Invariants: no ref outside refs/agent-checkpoints/ is written; a run
// that fails verification is never stored; a diverged local run is kept
// unless forced, and the work tree's active run is never replaced; the
// quarantine refs are deleted whatever happens; telling the runs of a
// push writes nothing; a copy never changes the run it copies.
package runsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// ErrDiverged is the error of a run whose local and remote copies have
// both moved on, and the local one was kept.
var ErrDiverged = errors.New("local and remote run have diverged")

// Action is what Fetch did, or would do, with one remote run.
type Action string

// Fetch actions.
const (
	New         Action = "new"          // the run did not exist here
	FastForward Action = "fast-forward" // the local run is an ancestor of the remote one
	UpToDate    Action = "up-to-date"
	LocalAhead  Action = "local-ahead" // the remote run is an ancestor of the local one: kept
	Diverged    Action = "diverged"    // neither contains the other: local kept
	Forced      Action = "forced"      // diverged, replaced because of force
	Refused     Action = "refused"     // failed verification: not stored
)

// Result is one run of a fetch.
type Result struct {
	Run    string // the run id, or the remote ref's name when it names no valid run
	Action Action
	Remote record.Hash // the fetched tip
	Local  record.Hash // the local tip before the fetch; zero if none
	Err    error       // why it was refused, or why a diverged run was kept
}

// Fetch fetches remote's runs into quarantine, verifies them, and, unless
// dryRun, moves each good run's ref (force replaces diverged runs but the
// active one). It returns one result per remote run ref, and an error
// only when it could not go on (gitrefs.ErrRemote, gitrefs.ErrRefChanged).
//
// With runs named, only those runs are fetched (gitrefs.ErrNoSuchRun when
// the remote lacks one).
func Fetch(ctx context.Context, store *patchstore.Store, refs *gitrefs.Store, log *slog.Logger, remote string, force, dryRun bool, runs ...record.RunID) ([]Result, error) {
	q, err := refs.FetchQuarantine(ctx, remote, runs...)
	if err != nil {
		return nil, err
	}
	defer func() {
		if derr := refs.DropQuarantine(context.WithoutCancel(ctx), q); derr != nil {
			log.Warn("could not delete quarantine refs", "prefix", q.Prefix, "err", derr)
		}
	}()
	// The pack list read before the fetch does not hold the pack it wrote.
	store.Rescan()
	verify := store
	active, err := store.ActiveRun()
	if err != nil {
		return nil, err
	}
	out := []Result{} // non-nil once fetched: the caller reports what was done
	for _, in := range q.Refs {
		res := Result{Remote: in.Hash}
		id, ok := in.RunID()
		if !ok {
			res.Run, res.Action = in.Remote, Refused
			res.Err = fmt.Errorf("remote ref %s does not name a valid run: %w", in.Remote, record.ErrCorrupt)
			out = append(out, res)
			continue
		}
		res.Run = string(id)
		if err := verify.VerifyRun(ctx, id, in.Hash); err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			res.Action, res.Err = Refused, err
			out = append(out, res)
			continue
		}
		ref := gitrefs.RunRef(id)
		local, err := refs.Read(ctx, ref)
		if err != nil {
			return out, err
		}
		res.Local = local
		switch {
		case local.IsZero():
			res.Action = New
		case local == in.Hash:
			res.Action = UpToDate
		default:
			ff, err := refs.IsAncestor(ctx, local, in.Hash)
			if err != nil {
				return out, err
			}
			behind, err := refs.IsAncestor(ctx, in.Hash, local)
			if err != nil {
				return out, err
			}
			switch {
			case ff:
				res.Action = FastForward
			case behind:
				res.Action = LocalAhead
			case force && id != active:
				res.Action = Forced
			default:
				res.Action = Diverged
				res.Err = ErrDiverged
				if force {
					res.Err = fmt.Errorf("%w: it is this worktree's active run, which is never replaced", ErrDiverged)
				}
			}
		}
		if !dryRun && (res.Action == New || res.Action == FastForward || res.Action == Forced) {
			if err := refs.Update(ctx, ref, in.Hash, local, "gitguard: fetch from "+remote); err != nil {
				return out, err
			}
		}
		out = append(out, res)
	}
	return out, nil
}
