package patchstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/atomicfile"
	"github.com/gitguard/gitguard/internal/git"
)

// activeFile holds the id of the worktree's active run. It lives in the
// worktree's own git dir, so linked worktrees each have their own.
type activeFile struct {
	Version   int       `json:"version"`
	Run       string    `json:"run"`
	StartedAt time.Time `json:"startedAt"`
}

func (s *Store) activePath() string { return filepath.Join(s.WS.StateDir(), "active-run") }

// ActiveRun returns the active run id, or "" when no run is active.
func (s *Store) ActiveRun() (string, error) {
	data, err := os.ReadFile(s.activePath())
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read active run: %w", err)
	}
	var a activeFile
	if err := json.Unmarshal(data, &a); err != nil || gitrefs.ValidateRunID(a.Run) != nil {
		return "", fmt.Errorf("%w: %s does not name a run; delete it to start afresh", ErrCorrupt, s.activePath())
	}
	return a.Run, nil
}

// SetActiveRun makes id the active run (atomically replacing the state file).
func (s *Store) SetActiveRun(id string) error {
	data, _ := json.Marshal(activeFile{Version: FormatVersion, Run: id, StartedAt: s.now()})
	return atomicfile.WriteFile(s.activePath(), append(data, '\n'), 0o644)
}

// ClearActiveRun ends the active run if it is id.
func (s *Store) ClearActiveRun(id string) error {
	cur, err := s.ActiveRun()
	if err != nil || cur != id {
		return err
	}
	if err := os.Remove(s.activePath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("clear active run: %w", err)
	}
	return nil
}

// NewRunID returns a fresh run id: the UTC time and a random suffix.
func NewRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return "run-" + now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// RunInfo summarises one run for listings.
type RunInfo struct {
	ID          string
	Tip         git.Hash
	Checkpoints int
	Last        *Checkpoint
	Finished    bool
}

// ListRuns returns every run in the repository, newest activity first.
func (s *Store) ListRuns(ctx context.Context) ([]RunInfo, error) {
	refs, err := s.Refs.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []RunInfo
	for _, ref := range refs {
		id, ok := gitrefs.ParseRunRef(ref.Name)
		if !ok {
			continue
		}
		cp, err := s.ReadRecord(ref.Hash)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", id, err)
		}
		out = append(out, RunInfo{ID: id, Tip: ref.Hash, Checkpoints: cp.Seq, Last: cp, Finished: cp.RunFinished})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Last.CreatedAt.After(out[j].Last.CreatedAt) })
	return out, nil
}

// ReadRecord reads only the Checkpoint record of a checkpoint commit.
func (s *Store) ReadRecord(commit git.Hash) (*Checkpoint, error) {
	_, root, err := s.rootTree(commit)
	if err != nil {
		return nil, err
	}
	for _, e := range root {
		if e.Name == "checkpoint.json" {
			var cp Checkpoint
			if err := s.readJSON(e.Hash, &cp, "checkpoint.json"); err != nil {
				return nil, err
			}
			return &cp, cp.validate()
		}
	}
	return nil, fmt.Errorf("%w: commit %s is not a gitguard checkpoint (no checkpoint.json)", ErrCorrupt, commit.Short())
}

// Entry is one checkpoint of a run's history.
type Entry struct {
	Commit     git.Hash
	Checkpoint *Checkpoint
}

// History returns the checkpoints of run id, newest first, following each
// record's Prev link. It stops after limit entries when limit > 0.
func (s *Store) History(ctx context.Context, id string, limit int) ([]Entry, error) {
	return s.history(ctx, id, limit, nil)
}

// CheckpointAt returns the checkpoint of run id with sequence number seq,
// reading the chain back from the tip only as far as it (sequence numbers
// fall along the chain). It returns ErrUnknownCheckpoint when there is none.
func (s *Store) CheckpointAt(ctx context.Context, id string, seq int) (Entry, error) {
	hist, err := s.history(ctx, id, 0, func(cp *Checkpoint) bool { return cp.Seq <= seq })
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
func (s *Store) history(ctx context.Context, id string, limit int, stop func(*Checkpoint) bool) ([]Entry, error) {
	tip, err := s.Refs.Read(ctx, gitrefs.RunRef(id))
	if err != nil {
		return nil, err
	}
	if tip.IsZero() {
		return nil, fmt.Errorf("run %q: %w", id, ErrUnknownRun)
	}
	var out []Entry
	seen := map[git.Hash]bool{}
	for h := tip; !h.IsZero(); {
		if seen[h] {
			return nil, fmt.Errorf("%w: checkpoint chain of run %s loops at %s", ErrCorrupt, id, h.Short())
		}
		seen[h] = true
		cp, err := s.ReadRecord(h)
		if err != nil {
			return nil, err
		}
		if cp.RunID != id {
			return nil, fmt.Errorf("%w: checkpoint %s of run %s claims run %s", ErrCorrupt, h.Short(), id, cp.RunID)
		}
		out = append(out, Entry{Commit: h, Checkpoint: cp})
		if (limit > 0 && len(out) >= limit) || (stop != nil && stop(cp)) {
			break
		}
		h = cp.Prev
	}
	return out, nil
}
