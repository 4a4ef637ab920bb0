// Package ckptspec finds a checkpoint from what a user types: its number
// in a run (ckpt_007, or 7) or a commit id or prefix.
//
// Invariants: it reads refs and records and writes nothing; a bare number
// of four or more digits is read as a commit prefix, not a number; a
// number found in several runs is refused as ambiguous, never guessed.
package ckptspec

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// ErrAmbiguous is returned when a checkpoint number matches in several runs.
var ErrAmbiguous = errors.New("checkpoint id is ambiguous")

// Resolve finds the checkpoint spec names (ckpt_007 or 7 in run, or the
// active run, or any run when there is none; or a commit id, full or a
// prefix of at least 4 hex digits) in the store. The caller splits off a
// RUN/ prefix. It returns patchstore.patchstore.ErrUnknownCheckpoint when none
// matches and ErrAmbiguous when several runs have the number.
func Resolve(ctx context.Context, store *patchstore.Store, repo *git.Repo, run record.RunID, spec string) (record.Entry, error) {
	var none record.Entry
	if seq, ok := parseSeq(spec); ok {
		runs := []record.RunID{run}
		if run == "" {
			if active, err := store.ActiveRun(); err == nil && active != "" {
				runs = []record.RunID{active}
			} else {
				infos, err := store.ListRuns(ctx)
				if err != nil {
					return none, err
				}
				runs = runs[:0]
				for _, i := range infos {
					runs = append(runs, i.ID)
				}
			}
		}
		var found []record.Entry
		for _, r := range runs {
			hist, err := store.History(ctx, r, 0)
			if err != nil {
				return none, err
			}
			for _, e := range hist {
				if e.Checkpoint.Seq == seq {
					found = append(found, e)
				}
			}
		}
		switch len(found) {
		case 0:
			return none, fmt.Errorf("checkpoint %q: %w", spec, patchstore.ErrUnknownCheckpoint)
		case 1:
			return found[0], nil
		}
		return none, fmt.Errorf("%w: %q exists in %d runs; use RUN/%s", ErrAmbiguous, spec, len(found), spec)
	}
	if len(spec) < 4 || len(spec) > 40 || strings.Trim(strings.ToLower(spec), "0123456789abcdef") != "" {
		return none, fmt.Errorf("checkpoint %q: %w", spec, patchstore.ErrUnknownCheckpoint)
	}
	out, err := repo.Git(ctx, "rev-parse", "-q", "--verify", "--end-of-options", spec+"^{commit}")
	if err != nil {
		if git.ExitCode(err) > 0 {
			return none, fmt.Errorf("checkpoint %q: %w", spec, patchstore.ErrUnknownCheckpoint)
		}
		return none, err
	}
	h, err := record.ParseHash(strings.TrimSpace(string(out)))
	if err != nil {
		return none, err
	}
	cp, err := store.ReadRecord(h)
	if err != nil {
		if errors.Is(err, record.ErrCorrupt) && strings.Contains(err.Error(), "not a gitguard checkpoint") {
			return none, fmt.Errorf("checkpoint %q: %w (it is a commit, not a checkpoint)", spec, patchstore.ErrUnknownCheckpoint)
		}
		return none, err
	}
	if run != "" && cp.RunID != run {
		return none, fmt.Errorf("checkpoint %q is in run %s, not %s: %w", spec, cp.RunID, run, patchstore.ErrUnknownCheckpoint)
	}
	return record.Entry{Commit: h, Checkpoint: cp}, nil
}

func parseSeq(s string) (int, bool) {
	rest, prefixed := strings.CutPrefix(s, "ckpt_")
	// A bare number of four or more digits could be a commit prefix.
	if rest == "" || len(rest) > 9 || (!prefixed && len(rest) > 3) {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0
}
