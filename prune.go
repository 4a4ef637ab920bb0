package gitguard

import (
	"context"
	"time"

	"github.com/gitguard/gitguard/internal/maintenance"
	"github.com/gitguard/gitguard/record"
)

// ErrPruneActive is returned by Prune when asked to delete the active run.
var ErrPruneActive = maintenance.ErrPruneActive

// ErrNoPruneRule is returned by Prune when no rule says what to delete and
// the configuration sets no retention.
var ErrNoPruneRule = maintenance.ErrNoPruneRule

// PruneOptions says which runs Prune deletes. Runs, when given, is the
// whole selection; otherwise Keep and OlderThan combine so that a run
// survives if either rule keeps it. When none of the three is set, the
// configuration's retention (Config.Retention) is the rule.
type PruneOptions struct {
	// Runs are run ids to delete.
	Runs []record.RunID
	// Keep keeps the Keep most recently active runs (by their last
	// checkpoint; the active run counts); nil means no such rule.
	Keep *int
	// OlderThan deletes runs whose last checkpoint is older than this; 0
	// means no such rule.
	OlderThan time.Duration
	// DryRun reports what would be deleted and deletes nothing.
	DryRun bool
	// Now is the time OlderThan counts back from; zero means time.Now.
	Now time.Time
}

// empty reports whether opts gives no rule.
func (o PruneOptions) empty() bool { return len(o.Runs) == 0 && o.Keep == nil && o.OlderThan == 0 }

// PrunedRun is a run Prune deleted (or would delete).
type PrunedRun struct {
	ID          record.RunID
	Tip         record.Hash
	Checkpoints int       // 0 when the tip was unreadable
	LastAt      time.Time // zero when the tip was unreadable
	Reason      string
}

// KeptRun is a run Prune kept, and why.
type KeptRun struct {
	ID     record.RunID
	Reason string
}

// PruneReport is the outcome of Prune.
type PruneReport struct {
	DryRun bool
	// RulesFrom names where the rules came from: empty when PruneOptions
	// gave them, else the configuration's source (Config.Path).
	RulesFrom string
	Deleted   []PrunedRun
	Kept      []KeptRun
	// Quarantine counts refs left by interrupted fetches, deleted too.
	Quarantine int
	// Unreachable counts the objects no ref reaches any more because of
	// the deletion; git gc removes them once older than gc.pruneExpire.
	Unreachable int
	// Freed is the bytes of gitguard's own packs taken back at once: the
	// unreachable objects gitguard wrote.
	Freed int64
}

// maintainer deletes, checks and repairs this repository's runs.
func (g *Guard) maintainer() *maintenance.Maintainer {
	return &maintenance.Maintainer{Repo: g.repo, DB: g.db, Store: g.store, Refs: g.refs}
}

// Prune deletes whole runs — their refs; the objects become unreachable —
// chosen by opts, or by the configuration's retention when opts gives no
// rule, never the worktree's active run. It deletes them in one ref
// transaction, each only if its ref has not moved (else ErrRefChanged),
// and also deletes quarantine refs left by fetches interrupted over an
// hour ago. It returns ErrNoPruneRule when nothing selects runs,
// ErrPruneActive or ErrUnknownRun for a bad opts.Runs.
func (g *Guard) Prune(ctx context.Context, opts PruneOptions) (*PruneReport, error) {
	from := ""
	if opts.empty() && g.Config != nil && !g.Config.Retention.IsZero() {
		opts.Keep, opts.OlderThan = g.Config.Retention.Keep, g.Config.Retention.OlderThan
		from = g.Config.Path
	}
	r, err := g.maintainer().Prune(ctx, maintenance.Rules{Runs: opts.Runs, Keep: opts.Keep, OlderThan: opts.OlderThan, DryRun: opts.DryRun, Now: opts.Now})
	if r == nil {
		return nil, err
	}
	rep := &PruneReport{DryRun: opts.DryRun, RulesFrom: from, Quarantine: r.Quarantine, Unreachable: r.Unreachable, Freed: r.Freed}
	for _, d := range r.Deleted {
		rep.Deleted = append(rep.Deleted, PrunedRun{ID: d.ID, Tip: d.Tip, Checkpoints: d.Checkpoints, LastAt: d.LastAt, Reason: d.Reason})
	}
	for _, k := range r.Kept {
		rep.Kept = append(rep.Kept, KeptRun{ID: k.ID, Reason: k.Reason})
	}
	return rep, err
}

// GC runs git gc, with reflog expiry switched off so that it removes
// unreachable objects without touching the reflogs of the user's refs. It
// removes only objects older than gc.pruneExpire (two weeks by default).
func (g *Guard) GC(ctx context.Context) error { return g.maintainer().GC(ctx) }

// MergePacks merges gitguard's own packs geometrically once several are
// listed, as every command nobody waits on does after its checkpoint (see
// odb.DB.Consolidate); a call's start and finish leave these merges to
// others. It is for a process that records tool calls and then idles, as
// the watch daemon does between an agent's hook events. It does nothing
// when the packs are few, git maintenance runs, or another process merges.
func (g *Guard) MergePacks() error { return g.db.Consolidate() }

// MakeSpareFiles makes ahead the empty files the next checkpoints' packs
// are written into, so that a tool call's start or finish creates no file
// of its own for them (see odb's spares.go). Like MergePacks it is for a
// process that idles between an agent's hook events; a failure only means
// those checkpoints create their files.
func (g *Guard) MakeSpareFiles() { g.db.MakeSpares() }
