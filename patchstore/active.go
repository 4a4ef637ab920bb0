package patchstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gitguard/gitguard/internal/atomicfile"
	"github.com/gitguard/gitguard/record"
)

// activeFile holds the id of the worktree's active run. It lives in the
// worktree's own git dir, so linked worktrees each have their own.
type activeFile struct {
	Version   int          `json:"version"`
	Run       record.RunID `json:"run"`
	StartedAt time.Time    `json:"startedAt"`
}

// maxActiveFile bounds the active run's file read back: it holds one
// short JSON object.
const maxActiveFile = 64 << 10

func (s *Store) activePath() string { return filepath.Join(s.h.StateDir(), "active-run") }

// ActiveRun returns the active run id, or "" when no run is active.
func (s *Store) ActiveRun() (record.RunID, error) {
	data, err := atomicfile.ReadFile(s.activePath(), maxActiveFile)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if errors.Is(err, atomicfile.ErrNotRegular) || errors.Is(err, atomicfile.ErrTooLarge) {
		return "", fmt.Errorf("%w: %s is not a run's record (%w); delete it to start afresh", record.ErrCorrupt, s.activePath(), err)
	}
	if err != nil {
		return "", fmt.Errorf("read active run: %w", err)
	}
	var a activeFile
	if err := json.Unmarshal(data, &a); err != nil || a.Run.Validate() != nil {
		return "", fmt.Errorf("%w: %s does not name a run; delete it to start afresh", record.ErrCorrupt, s.activePath())
	}
	return a.Run, nil
}

// SetActiveRun makes id the active run (atomically replacing the state file).
func (s *Store) SetActiveRun(id record.RunID) error {
	data, _ := json.Marshal(activeFile{Version: record.FormatVersion, Run: id, StartedAt: s.now()})
	return atomicfile.WriteFile(s.activePath(), append(data, '\n'), 0o644)
}

// ClearActiveRun ends the active run if it is id.
func (s *Store) ClearActiveRun(id record.RunID) error {
	cur, err := s.ActiveRun()
	if err != nil || cur != id {
		return err
	}
	if err := os.Remove(s.activePath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("clear active run: %w", err)
	}
	return nil
}
