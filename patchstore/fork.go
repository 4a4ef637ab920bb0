package patchstore

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// ErrRunExists is returned by Fork when the new run's id is taken.
var ErrRunExists = errors.New("run already exists")

// Fork records run to as a copy of run from as of its checkpoint commit
// tip: every checkpoint of the chain again, in order, with the same trees,
// calls and times, its record naming run to and, in Origin, where it came
// from (origin, "<run> <commit>"), which every later checkpoint of run to
// carries. This is how a run that diverged from the remote's copy of it is
// published under a new id: the chains share no commit, so each verifies
// as its own run. The run ref of to is created by compare-and-swap from
// nothing once every object is written and synced; run from is untouched.
//
// It writes objects and one ref; it returns ErrRunExists when run to
// exists, and record.ErrCorrupt when the chain cannot be read.
func (s *Store) Fork(ctx context.Context, from record.RunID, tip record.Hash, to record.RunID, origin string) (record.Hash, error) {
	if err := to.Validate(); err != nil {
		return record.ZeroHash, err
	}
	ref := gitrefs.RunRef(to)
	if h, err := s.refs.Read(ctx, ref); err != nil {
		return record.ZeroHash, err
	} else if !h.IsZero() {
		return record.ZeroHash, fmt.Errorf("fork run %s as %s: %w", from, to, ErrRunExists)
	}
	var chain []record.Hash
	for h := tip; !h.IsZero(); {
		if err := ctx.Err(); err != nil {
			return record.ZeroHash, err
		}
		if len(chain) >= MaxChainLength {
			return record.ZeroHash, fmt.Errorf("%w: run %s: chain longer than %d checkpoints", record.ErrCorrupt, from, MaxChainLength)
		}
		cp, err := s.ReadRecord(h)
		if err != nil {
			return record.ZeroHash, fmt.Errorf("fork run %s: %w", from, err)
		}
		if cp.RunID != from {
			return record.ZeroHash, fmt.Errorf("%w: checkpoint %s of run %s claims run %s", record.ErrCorrupt, h.Short(), from, cp.RunID)
		}
		chain = append(chain, h)
		h = cp.Prev
	}
	slices.Reverse(chain)
	prev := record.ZeroHash
	for _, h := range chain {
		c, err := s.db.ReadCommit(h)
		if err != nil {
			return record.ZeroHash, fmt.Errorf("%w: fork run %s: %w", record.ErrCorrupt, from, err)
		}
		root, err := s.db.ReadTree(c.Tree)
		if err != nil {
			return record.ZeroHash, fmt.Errorf("%w: fork run %s: %w", record.ErrCorrupt, from, err)
		}
		cp, err := s.ReadRecord(h)
		if err != nil {
			return record.ZeroHash, err
		}
		parents := slices.Clone(c.Parents)
		if !cp.Prev.IsZero() {
			if len(parents) == 0 || parents[0] != cp.Prev {
				return record.ZeroHash, fmt.Errorf("%w: checkpoint %s of run %s: first parent is not its previous checkpoint", record.ErrCorrupt, h.Short(), from)
			}
			parents[0] = prev
		}
		cp.RunID, cp.Prev, cp.Origin = to, prev, origin
		blob, err := s.writeJSON(cp)
		if err != nil {
			return record.ZeroHash, err
		}
		entries := slices.Clone(root)
		for i := range entries {
			if entries[i].Name == "checkpoint.json" {
				entries[i].Hash = blob
			}
		}
		tree, err := s.db.WriteTree(entries)
		if err != nil {
			return record.ZeroHash, err
		}
		calls := -1
		if cp.Calls != nil {
			calls = *cp.Calls
		}
		prev, err = s.db.Write(odb.TypeCommit, odb.EncodeCommit(&odb.Commit{
			Tree: tree, Parents: parents, Author: c.Author, Committer: c.Committer,
			Message: record.CheckpointMessage(cp, calls, origin),
		}))
		if err != nil {
			return record.ZeroHash, err
		}
	}
	if err := s.db.Flush(); err != nil {
		return record.ZeroHash, err
	}
	if err := s.syncObjects(); err != nil {
		return record.ZeroHash, err
	}
	if err := s.refs.Update(ctx, ref, prev, record.ZeroHash, "gitguard: fork of "+string(from)); err != nil {
		if errors.Is(err, gitrefs.ErrRefChanged) {
			return record.ZeroHash, fmt.Errorf("fork run %s as %s: %w", from, to, ErrRunExists)
		}
		return record.ZeroHash, err
	}
	return prev, nil
}
