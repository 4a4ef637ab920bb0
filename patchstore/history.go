package patchstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// RunInfo is record.RunInfo; the store's code names the listing types short.
type RunInfo = record.RunInfo

// Entry is record.Entry.
type Entry = record.Entry

// ListRuns returns every run in the repository, newest activity first.
func (s *Store) ListRuns(ctx context.Context) ([]RunInfo, error) {
	return s.listRuns(ctx, "", false)
}

// ListUnfinishedRuns is ListRuns for the runs whose ids start with prefix
// and that are not finished. A run whose tip is its finish is known by the
// tip commit alone: its record is not read, so a work tree that keeps
// many finished runs costs one small read for each.
func (s *Store) ListUnfinishedRuns(ctx context.Context, prefix string) ([]RunInfo, error) {
	return s.listRuns(ctx, prefix, true)
}

func (s *Store) listRuns(ctx context.Context, prefix string, unfinished bool) ([]RunInfo, error) {
	refs, err := s.refs.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []RunInfo
	for _, ref := range refs {
		id, ok := gitrefs.ParseRunRef(ref.Name)
		if !ok || !strings.HasPrefix(string(id), prefix) {
			continue
		}
		if unfinished && !s.FinishedAt(ref.Hash).IsZero() {
			continue
		}
		cp, err := s.ReadRecord(ref.Hash)
		if err != nil && errors.Is(err, odb.ErrMissing) {
			// A damaged run is listed as of its newest intact checkpoint
			// (readIntact warns).
			if r, ierr := s.readIntact(ctx, id, selectCalls(nil), err); ierr == nil {
				cp, err = r.Checkpoint, nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", id, err)
		}
		if unfinished && cp.RunFinished {
			continue
		}
		out = append(out, RunInfo{ID: id, Tip: ref.Hash, Checkpoints: cp.Seq, Last: cp, Finished: cp.RunFinished})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Last.CreatedAt.After(out[j].Last.CreatedAt) })
	return out, nil
}

// FinishedAt returns when the checkpoint commit recorded its run's finish,
// from the commit alone: the subject of its message names the kind
// (record.CheckpointMessage), and its time (whole seconds, rounded down)
// the moment. Zero for any other checkpoint, and for a commit that cannot
// be read, which the caller reads in full. A run whose tip is its finish
// is known finished without reading its record.
//
// A commit never changes, so a finish is remembered by the process: a
// watch daemon reads each finished run's tip once, not at every session's
// start and shell call's finish. Any other tip is read each time: an
// active run's moves at every event, and remembering those would only
// fill the memory.
func (s *Store) FinishedAt(commit record.Hash) time.Time {
	if at, ok := finishes.get(commit); ok {
		return at
	}
	c, err := s.db.ReadCommit(commit)
	if err != nil {
		return time.Time{}
	}
	if sum, ok := record.ParseSummary(c.Message); !ok || sum.Kind != record.KindRunFinish {
		return time.Time{}
	}
	finishes.put(commit, c.Committer.When)
	return c.Committer.When
}

// finishes remembers the finishes FinishedAt read, for the process: a
// run's at most, 4,096 of them (about 256 KiB), then it starts over.
var finishes = commitMemo{max: 4096}

// commitMemo maps commits to what was read of them; past max entries it
// starts over.
type commitMemo struct {
	mu  sync.Mutex
	max int
	m   map[record.Hash]time.Time
}

func (c *commitMemo) get(h record.Hash) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.m[h]
	return at, ok
}

func (c *commitMemo) put(h record.Hash, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = map[record.Hash]time.Time{}
	}
	c.m[h] = at
}

// ReadRecord reads only the Checkpoint record of a checkpoint commit.
func (s *Store) ReadRecord(commit record.Hash) (*record.Checkpoint, error) {
	_, root, err := s.rootTree(commit)
	if err != nil {
		return nil, err
	}
	for _, e := range root {
		if e.Name == "checkpoint.json" {
			var cp record.Checkpoint
			if err := s.readJSON(e.Hash, &cp, "checkpoint.json"); err != nil {
				return nil, err
			}
			return &cp, cp.Validate()
		}
	}
	return nil, fmt.Errorf("%w: commit %s is not a gitguard checkpoint (no checkpoint.json)", record.ErrCorrupt, commit.Short())
}

// History returns the checkpoints of run id, newest first, following each
// record's Prev link. It stops after limit entries when limit > 0.
func (s *Store) History(ctx context.Context, id record.RunID, limit int) ([]Entry, error) {
	return s.history(ctx, id, limit, nil)
}

// CheckpointAt returns the checkpoint of run id with sequence number seq,
// reading the chain back from the tip only as far as it (sequence numbers
// fall along the chain). It returns ErrUnknownCheckpoint when there is none.
func (s *Store) CheckpointAt(ctx context.Context, id record.RunID, seq int) (Entry, error) {
	hist, err := s.history(ctx, id, 0, func(cp *record.Checkpoint) bool { return cp.Seq <= seq })
	if err != nil {
		return Entry{}, err
	}
	if n := len(hist); n > 0 && hist[n-1].Checkpoint.Seq == seq {
		return hist[n-1], nil
	}
	return Entry{}, fmt.Errorf("checkpoint %d of run %s: %w", seq, id, ErrUnknownCheckpoint)
}

// history reads the chain from the tip, newest first, until limit entries
// or the first checkpoint for which stop is true (included).
func (s *Store) history(ctx context.Context, id record.RunID, limit int, stop func(*record.Checkpoint) bool) ([]Entry, error) {
	tip, err := s.refs.Read(ctx, gitrefs.RunRef(id))
	if err != nil {
		return nil, err
	}
	if tip.IsZero() {
		return nil, fmt.Errorf("run %q: %w", id, ErrUnknownRun)
	}
	var out []Entry
	seen := map[record.Hash]bool{}
	trees := map[record.Hash]bool{}
	for h := tip; !h.IsZero(); {
		if seen[h] {
			return nil, fmt.Errorf("%w: checkpoint chain of run %s loops at %s", record.ErrCorrupt, id, h.Short())
		}
		seen[h] = true
		cp, err := s.readChecked(h, trees)
		if err != nil {
			prev, ok := s.skipDamaged(id, h, err) // see damage.go
			if !ok {
				return nil, err
			}
			h = prev
			continue
		}
		if cp.RunID != id {
			return nil, fmt.Errorf("%w: checkpoint %s of run %s claims run %s", record.ErrCorrupt, h.Short(), id, cp.RunID)
		}
		if n := len(out); n > 0 {
			if err := checkLink(out[n-1].Commit, out[n-1].Checkpoint, cp); err != nil {
				return nil, err
			}
		}
		out = append(out, Entry{Commit: h, Checkpoint: cp})
		if (limit > 0 && len(out) >= limit) || (stop != nil && stop(cp)) {
			break
		}
		h = cp.Prev
	}
	return out, nil
}

// NewestWhere returns the newest checkpoint of run id for which match is
// true, reading the chain back from the tip only as far as it; the run's
// first checkpoint when none matches.
func (s *Store) NewestWhere(ctx context.Context, id record.RunID, match func(*record.Checkpoint) bool) (Entry, error) {
	hist, err := s.history(ctx, id, 0, match)
	if err != nil {
		return Entry{}, err
	}
	return hist[len(hist)-1], nil
}
