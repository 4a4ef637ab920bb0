package maintenance

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/fault"
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// ErrPruneActive is returned by Prune when asked to delete the active run.
var ErrPruneActive = errors.New("cannot prune the active run")

// ErrNoPruneRule is returned by Prune when no rule says what to delete.
var ErrNoPruneRule = errors.New("no prune rule given")

// Maintainer deletes, checks and repairs the runs of one repository. It
// is not safe for concurrent use; separate processes are (refs move by
// compare-and-swap).
type Maintainer struct {
	Repo  *git.Repo
	DB    *odb.DB
	Store *patchstore.Store
	Refs  *gitrefs.Store
}

// Rules say which runs Prune deletes. Runs, when given, is the whole
// selection; otherwise Keep and OlderThan combine so that a run survives
// if either rule keeps it.
type Rules struct {
	Runs      []record.RunID
	Keep      *int          // nil: no such rule
	OlderThan time.Duration // 0: no such rule
	DryRun    bool
	Now       time.Time // zero: time.Now
}

// Pruned is a run Prune deleted (or would delete).
type Pruned struct {
	ID          record.RunID
	Tip         record.Hash
	Checkpoints int       // 0 when the tip was unreadable
	LastAt      time.Time // zero when the tip was unreadable
	Reason      string
}

// Kept is a run Prune kept, and why.
type Kept struct {
	ID     record.RunID
	Reason string
}

// Report is the outcome of Prune.
type Report struct {
	Deleted     []Pruned
	Kept        []Kept
	Quarantine  int   // refs left by interrupted fetches, deleted too
	Unreachable int   // objects no ref reaches any more because of the deletion
	Freed       int64 // bytes of gitguard's own packs taken back at once
}

// staleQuarantine is how old an unfinished fetch's quarantine must be
// before prune deletes it (a running fetch keeps its own for seconds).
const staleQuarantine = time.Hour

// Prune deletes whole runs — their refs; the objects become unreachable —
// chosen by opts, never the worktree's active run. It deletes them in one
// ref transaction, each only if its ref has not moved (else
// gitrefs.ErrRefChanged), and also deletes quarantine refs left by fetches
// interrupted over an hour ago. It returns ErrNoPruneRule when opts selects
// nothing, ErrPruneActive or patchstore.ErrUnknownRun for a bad opts.Runs.
// It writes refs only under refs/agent-checkpoints/ and gitguard's own packs.
func (m *Maintainer) Prune(ctx context.Context, opts Rules) (*Report, error) {
	if len(opts.Runs) == 0 && opts.Keep == nil && opts.OlderThan == 0 {
		return nil, ErrNoPruneRule
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	active, err := m.Store.ActiveRun()
	if err != nil {
		return nil, err
	}
	refs, err := m.Refs.List(ctx)
	if err != nil {
		return nil, err
	}
	type info struct {
		id  record.RunID
		tip record.Hash
		cp  *record.Checkpoint
		err error
	}
	var runs []info
	byID := map[record.RunID]info{}
	for _, r := range refs {
		id, ok := gitrefs.ParseRunRef(r.Name)
		if !ok {
			continue
		}
		in := info{id: id, tip: r.Hash}
		in.cp, in.err = m.Store.ReadRecord(r.Hash)
		runs = append(runs, in)
		byID[id] = in
	}
	rep := &Report{}
	del := func(in info, reason string) {
		p := Pruned{ID: in.id, Tip: in.tip, Reason: reason}
		if in.cp != nil {
			p.Checkpoints, p.LastAt = in.cp.Seq, in.cp.CreatedAt
		}
		rep.Deleted = append(rep.Deleted, p)
	}
	if len(opts.Runs) > 0 {
		seen := map[record.RunID]bool{}
		for _, id := range opts.Runs {
			if err := id.Validate(); err != nil {
				return nil, err
			}
			in, ok := byID[id]
			switch {
			case !ok:
				return nil, fmt.Errorf("run %q: %w", id, patchstore.ErrUnknownRun)
			case id == active && in.err == nil:
				// An active run whose tip cannot be read cannot be finished
				// either: naming it is the way out (see 'gitguard fsck').
				return nil, fmt.Errorf("%w %s; finish it first with 'gitguard finish'", ErrPruneActive, id)
			case seen[id]:
				continue
			}
			seen[id] = true
			del(in, "named with --run")
		}
	} else {
		// Newest activity first; unreadable runs sort last and are kept.
		sort.SliceStable(runs, func(i, j int) bool {
			a, b := runs[i].cp, runs[j].cp
			if (a == nil) != (b == nil) {
				return a != nil
			}
			if a == nil {
				return runs[i].id < runs[j].id
			}
			return a.CreatedAt.After(b.CreatedAt)
		})
		for i, in := range runs {
			switch {
			case in.id == active:
				rep.Kept = append(rep.Kept, Kept{in.id, "active run"})
				continue
			case in.err != nil:
				rep.Kept = append(rep.Kept, Kept{in.id, "unreadable (" + in.err.Error() + "); delete it with --run"})
				continue
			}
			beyondKeep := opts.Keep != nil && i >= *opts.Keep
			old := opts.OlderThan > 0 && in.cp.CreatedAt.Before(now.Add(-opts.OlderThan))
			var reason string
			switch {
			case opts.Keep != nil && opts.OlderThan > 0 && beyondKeep && old:
				reason = fmt.Sprintf("not among the %d most recent, last active %s", *opts.Keep, in.cp.CreatedAt.UTC().Format(time.RFC3339))
			case opts.Keep != nil && opts.OlderThan == 0 && beyondKeep:
				reason = fmt.Sprintf("not among the %d most recent", *opts.Keep)
			case opts.Keep == nil && old:
				reason = "last active " + in.cp.CreatedAt.UTC().Format(time.RFC3339)
			}
			if reason == "" {
				why := "recent"
				if opts.Keep != nil && !beyondKeep {
					why = fmt.Sprintf("among the %d most recent", *opts.Keep)
				}
				rep.Kept = append(rep.Kept, Kept{in.id, why})
				continue
			}
			del(in, reason)
		}
	}
	stale, err := m.Refs.StaleQuarantine(ctx, now.Add(-staleQuarantine))
	if err != nil {
		return nil, err
	}
	rep.Quarantine = len(stale)
	var gone []gitrefs.Ref
	var tips []record.Hash
	var names []string
	clearActive := false
	for _, d := range rep.Deleted {
		gone = append(gone, gitrefs.Ref{Name: gitrefs.RunRef(d.ID), Hash: d.Tip})
		clearActive = clearActive || d.ID == active
	}
	gone = append(gone, stale...)
	for _, r := range gone {
		names = append(names, r.Name)
		if id, ok := gitrefs.ParseRunRef(r.Name); ok && byID[id].err != nil {
			continue // damaged: git rev-list would stop at its missing objects
		}
		tips = append(tips, r.Hash)
	}
	if !opts.DryRun {
		// Crash points around the deletion. The refs go in one git ref
		// transaction, so there is no point between two deletions: a kill
		// leaves all of them or none.
		fault.Point("prune.delete.before")
		if err := m.Refs.DeleteRefs(ctx, gone); err != nil {
			return nil, err
		}
		fault.Point("prune.delete.after")
		if clearActive {
			if err := m.Store.ClearActiveRun(active); err != nil {
				return nil, err
			}
		}
	}
	rep.Unreachable, err = m.Refs.Unreachable(ctx, tips, names)
	if err != nil {
		return rep, err
	}
	if !opts.DryRun && len(gone) > 0 {
		if rep.Freed, err = m.freePruned(ctx); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// GC runs git gc, with reflog expiry switched off so that it removes
// unreachable objects without touching the reflogs of the user's refs. It
// removes only objects older than gc.pruneExpire (two weeks by default).
func (m *Maintainer) GC(ctx context.Context) error {
	_, err := m.Repo.Git(ctx, "-c", "gc.reflogExpire=never", "-c", "gc.reflogExpireUnreachable=never", "gc", "--quiet")
	if err != nil {
		return fmt.Errorf("git gc: %w", err)
	}
	return nil
}
