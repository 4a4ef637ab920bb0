package patchstore

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	"github.com/gitguard/gitguard/record"
)

// WorktreeName names the linked worktree this store writes from (the folder
// under the common git dir's worktrees/), or "" for the main work tree.
// Runs of one repository share their refs across worktrees; this tells
// their work trees apart.
func (s *Store) WorktreeName() string {
	if s.h.GitDir == s.h.CommonDir {
		return ""
	}
	if rel, err := filepath.Rel(filepath.Join(s.h.CommonDir, "worktrees"), s.h.GitDir); err == nil && filepath.Base(rel) == rel {
		return rel
	}
	return filepath.Base(s.h.GitDir)
}

// stampOverlap fills in what other runs read cheaply to find the calls that
// overlap theirs: the work tree the run records and when the run started
// (its first checkpoint's, kept from then on), and the calls open as of cp.
//
// The open list is exact when the previous checkpoint had one, or when the
// tip holds every call; a tip read for a few calls updates the previous
// list with those calls. Otherwise it stays unknown and readers read every
// call.
func (s *Store) stampOverlap(tip *Run, cp *record.Checkpoint) {
	if tip.Exists() {
		cp.Worktree, cp.RunStartedAt = tip.Checkpoint.Worktree, tip.Checkpoint.RunStartedAt
	} else {
		cp.Worktree, cp.RunStartedAt = s.WorktreeName(), cp.CreatedAt
	}
	switch {
	case !cp.RunFinished:
		cp.RunFinishedAt = time.Time{}
	case !cp.RunFinishedAt.IsZero():
	case tip.Exists() && tip.Checkpoint.RunFinished:
		// Finishing a finished run again, or a checkpoint that keeps it
		// finished (an undo's): it ended when it was first finished.
		cp.RunFinishedAt = FinishedAt(tip.Checkpoint)
	default:
		cp.RunFinishedAt = cp.CreatedAt
	}
	open := map[record.CallID]bool{}
	switch {
	case tip.Exists() && tip.Checkpoint.OpenKnown:
		for _, id := range tip.Checkpoint.Open {
			_, kept := tip.other[id]
			if kept || tip.Calls[id] != nil || tip.partial {
				open[id] = true
			}
		}
	case tip.Exists() && (len(tip.other) > 0 || tip.partial):
		cp.Open, cp.OpenKnown = nil, false
		return
	}
	for id, c := range tip.Calls {
		if c.Ledger.Status == record.StatusStarted {
			open[id] = true
		} else {
			delete(open, id)
		}
	}
	cp.Open = cp.Open[:0]
	for id := range open {
		cp.Open = append(cp.Open, id)
	}
	slices.Sort(cp.Open)
	if len(cp.Open) == 0 {
		cp.Open = nil
	}
	cp.OpenKnown = true
}

// FinishedAt returns when the run of checkpoint cp was finished, or zero
// while it is not: the recorded time, or for a record of an older writer
// (which kept no time and no finish past its run-finish checkpoint) when cp
// was recorded.
func FinishedAt(cp *record.Checkpoint) time.Time {
	switch {
	case !cp.RunFinished:
		return time.Time{}
	case !cp.RunFinishedAt.IsZero():
		return cp.RunFinishedAt
	}
	return cp.CreatedAt
}

// HistorySince returns the checkpoints of run id newest first, back to and
// including the first one recorded before from (or the run's first).
func (s *Store) HistorySince(ctx context.Context, id record.RunID, from time.Time) ([]Entry, error) {
	return s.history(ctx, id, 0, func(cp *record.Checkpoint) bool { return cp.CreatedAt.Before(from) })
}
