package patchstore

import (
	"fmt"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// A run read without VerifyRun (every local command: status, undo, log,
// show, …) is validated as it is read, whoever wrote it — a run planted
// with plain git fetch and git update-ref gets no other check:
//
//   - each checkpoint a command reads is checked against its commit
//     (checkCommit): parents, root tree layout, and the top level of its
//     index and work-tree trees, whose reading validates their names;
//   - the chain is checked link by link as it is followed (history), and
//     the tip's link to its predecessor whenever a run is read (checkTip),
//     so a ref pointing at another run's commit, or a Prev naming a tree
//     or a commit of another run, is refused even by commands that never
//     look further back;
//   - every tree deeper down is validated as it is walked (odb.DecodeTree):
//     a tree entry becomes a path only by being walked.
//
// Validating whole trees on every read would cost O(repository) per
// command; this costs O(what the command reads).

// checkCommit checks checkpoint commit h against its record cp: the
// sequence number and id agree, the parents are exactly the previous
// checkpoint (first) and the HEAD commit, the root tree holds only
// gitguard's entries with index/ and worktree/ as recorded, and the top
// levels of those two trees parse with safe names.
func (s *Store) checkCommit(h record.Hash, cp *record.Checkpoint) error {
	c, err := s.db.ReadCommit(h)
	if err != nil {
		return fmt.Errorf("%w: run %s, checkpoint commit %s: %w", record.ErrCorrupt, cp.RunID, h.Short(), err)
	}
	root, err := s.db.ReadTree(c.Tree)
	if err != nil {
		return fmt.Errorf("%w: run %s, checkpoint commit %s: %w", record.ErrCorrupt, cp.RunID, h.Short(), err)
	}
	return s.checkCommitParts(h, c.Parents, root, cp, nil)
}

// readChecked is ReadRecord and checkCommit in one, reading the commit and
// its root tree once. trees holds the index and work-tree trees already
// checked, which consecutive checkpoints mostly share.
func (s *Store) readChecked(h record.Hash, trees map[record.Hash]bool) (*record.Checkpoint, error) {
	c, err := s.db.ReadCommit(h)
	if err != nil {
		return nil, fmt.Errorf("%w: checkpoint %s: %w", record.ErrCorrupt, h.Short(), err)
	}
	root, err := s.db.ReadTree(c.Tree)
	if err != nil {
		return nil, fmt.Errorf("%w: checkpoint %s: %w", record.ErrCorrupt, h.Short(), err)
	}
	var cp *record.Checkpoint
	for _, e := range root {
		if e.Name == "checkpoint.json" {
			cp = &record.Checkpoint{}
			if err := s.readJSON(e.Hash, cp, "checkpoint.json"); err != nil {
				return nil, err
			}
			if err := cp.Validate(); err != nil {
				return nil, err
			}
		}
	}
	if cp == nil {
		return nil, fmt.Errorf("%w: commit %s is not a gitguard checkpoint (no checkpoint.json)", record.ErrCorrupt, h.Short())
	}
	return cp, s.checkCommitParts(h, c.Parents, root, cp, trees)
}

func (s *Store) checkCommitParts(h record.Hash, parents []record.Hash, root []odb.TreeEntry, cp *record.Checkpoint, trees map[record.Hash]bool) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: run %s, checkpoint commit %s: %s", record.ErrCorrupt, cp.RunID, h.Short(), fmt.Sprintf(format, args...))
	}
	if cp.Seq < 1 || cp.ID != record.NewCheckpointID(cp.Seq) {
		return fail("checkpoint id %q does not match sequence number %d", cp.ID, cp.Seq)
	}
	if cp.Prev.IsZero() != (cp.Seq == 1) {
		return fail("previous link and sequence number %d disagree", cp.Seq)
	}
	if err := checkParents(parents, cp); err != nil {
		return fail("%v", err)
	}
	if err := checkRoot(root, cp); err != nil {
		return fail("%v", err)
	}
	for _, t := range []struct {
		name string
		h    record.Hash
	}{{"worktree", cp.WorktreeTree}, {"index", cp.IndexTree}} {
		if trees[t.h] {
			continue
		}
		if trees != nil {
			trees[t.h] = true
		}
		if _, err := s.db.ReadTreeOrEmpty(t.h); err != nil {
			// err wraps ErrCorrupt (a hostile tree) or says what is missing.
			return fmt.Errorf("run %s, checkpoint commit %s: %s/: %w", cp.RunID, h.Short(), t.name, err)
		}
	}
	return nil
}

// checkTip checks the tip r of a run as read by readRun, and its link to
// the previous checkpoint: that one is a checkpoint commit of the same run
// with the sequence number before.
func (s *Store) checkTip(r *Run) error {
	cp := r.Checkpoint
	if err := s.checkCommit(r.Commit, cp); err != nil {
		return err
	}
	if err := s.checkTopObjects(r); err != nil {
		return err
	}
	if cp.Prev.IsZero() {
		return nil
	}
	prev, err := s.ReadRecord(cp.Prev)
	if err != nil {
		return fmt.Errorf("run %s, checkpoint commit %s: previous checkpoint: %w", cp.RunID, r.Commit.Short(), err)
	}
	return checkLink(r.Commit, cp, prev)
}

// checkTopObjects checks that the objects a tip's root tree names, and
// those its calls/ and runindex/ trees name, are in the repository: a
// checkpoint whose pack git maintenance deleted lacks them all, and a
// reader that found out only when it read a call would fail (exit 3)
// instead of reading the run up to its newest intact checkpoint. It reads
// two trees and looks objects up; deeper objects are checked by Check.
// The error wraps odb.ErrMissing.
func (s *Store) checkTopObjects(r *Run) error {
	root, err := s.db.ReadTree(r.tree)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", r.Commit.Short(), err)
	}
	for _, e := range root {
		if e.Mode == record.ModeGitlink {
			continue
		}
		if !s.db.Has(e.Hash) {
			return fmt.Errorf("checkpoint %s: %s %s: %w", r.Commit.Short(), e.Name, e.Hash.Short(), odb.ErrMissing)
		}
		if e.Mode != record.ModeTree || (e.Name != "calls" && e.Name != indexName) {
			continue
		}
		sub, err := s.db.ReadTree(e.Hash)
		if err != nil {
			return fmt.Errorf("checkpoint %s: %s: %w", r.Commit.Short(), e.Name, err)
		}
		for _, c := range sub {
			if c.Mode != record.ModeGitlink && !s.db.Has(c.Hash) {
				return fmt.Errorf("checkpoint %s: %s/%s %s: %w", r.Commit.Short(), e.Name, c.Name, c.Hash.Short(), odb.ErrMissing)
			}
		}
	}
	return nil
}

// checkLink checks that prev is the checkpoint before cp (commit h) in the
// same run.
func checkLink(h record.Hash, cp, prev *record.Checkpoint) error {
	switch {
	case prev.RunID != cp.RunID:
		return fmt.Errorf("%w: run %s, checkpoint commit %s: its previous checkpoint %s belongs to run %s",
			record.ErrCorrupt, cp.RunID, h.Short(), cp.Prev.Short(), prev.RunID)
	case prev.Seq != cp.Seq-1:
		return fmt.Errorf("%w: run %s, checkpoint commit %s: sequence number %d follows %d",
			record.ErrCorrupt, cp.RunID, h.Short(), cp.Seq, prev.Seq)
	}
	return nil
}
