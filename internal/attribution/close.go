package attribution

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// CloseOpen marks the calls of run runID still started uncertain, on
// evidence ev that their process is over, as MarkKilled does; ev.At
// defaults to now and ev.What to ev.Kind. Undo and redo calls, and the
// calls of except, are left started. It returns the calls it closed; a run
// that does not exist, is damaged, or has no call open, costs one read of
// its newest record and records nothing.
func (a *Attributor) CloseOpen(ctx context.Context, runID record.RunID, ev record.WindowEnd, now time.Time, except ...record.CallID) ([]record.CallID, error) {
	run, err := a.Store.ReadRunCalls(ctx, runID)
	if errors.Is(err, patchstore.ErrUnknownRun) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var open []record.CallID
	if run.Checkpoint.OpenKnown {
		open = run.Checkpoint.Open
	} else {
		entries, err := a.Store.LedgerEntries(run)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Status == record.StatusStarted {
				open = append(open, e.CallID)
			}
		}
	}
	open = slices.DeleteFunc(slices.Clone(open), func(id record.CallID) bool { return slices.Contains(except, id) })
	if len(open) == 0 || run.Damage != nil {
		return nil, nil
	}
	if err := a.Store.LoadCalls(run, open...); err != nil {
		return nil, err
	}
	var ids []record.CallID
	for _, id := range open {
		c := run.Calls[id]
		if c != nil && c.Ledger.Status == record.StatusStarted && !runread.IsUndoTool(c.Ledger.ToolName) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	slices.Sort(ids)
	if ev.At.IsZero() {
		ev.At = now
	}
	ev.What = strings.TrimSpace(ev.What)
	if ev.What == "" {
		ev.What = ev.Kind
	}
	if _, err := a.MarkKilled(ctx, run, ids, &ev); err != nil {
		return nil, err
	}
	return ids, nil
}

// Started lists the calls of entries recorded as started, sorted.
func Started(entries []record.LedgerEntry) []record.CallID {
	var ids []record.CallID
	for _, e := range entries {
		if e.Status == record.StatusStarted {
			ids = append(ids, e.CallID)
		}
	}
	slices.Sort(ids)
	return ids
}

// MarkStarted marks the calls entries list as started uncertain (their
// process is gone: a resume found them), as MarkKilled does, and updates
// entries to match. With dryRun, or for a damaged run, which is read at
// its newest intact checkpoint and not written to until 'gitguard fsck
// --repair', it records nothing. It returns the run as recorded after,
// and the calls found started.
func (a *Attributor) MarkStarted(ctx context.Context, run *patchstore.Run, entries []record.LedgerEntry, dryRun bool) (*patchstore.Run, []record.CallID, error) {
	stale := Started(entries)
	if len(stale) == 0 || dryRun || run.Damage != nil {
		return run, stale, nil
	}
	run, err := a.MarkKilled(ctx, run, stale, nil)
	if err != nil {
		return nil, nil, err
	}
	for i := range entries {
		if c := run.Calls[entries[i].CallID]; c != nil {
			entries[i] = c.Ledger
		}
	}
	return run, stale, nil
}
