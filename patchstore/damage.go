package patchstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// Reading a run whose newest checkpoints name missing objects (deleted by
// git maintenance, a disk error, a half-copied repository). Such a run is
// not lost: readers take its newest intact checkpoint and say what is
// missing, and Repair re-points the run there.

// Missing is record.Missing; the store's code names the damage types short.
type Missing = record.Missing

// DamagedCheckpoint is record.DamagedCheckpoint.
type DamagedCheckpoint = record.DamagedCheckpoint

// Damage is record.Damage.
type Damage = record.Damage

// maxDamagedWalk bounds how many damaged checkpoints a reader walks past.
const maxDamagedWalk = 1000

// SetLogger makes the store warn through l when a reader falls back to an
// older checkpoint of a damaged run; nil discards.
func (s *Store) SetLogger(l *slog.Logger) { s.log = l }

// readRunIntact is readRun for readers: a run whose tip lacks objects is
// read at its newest intact checkpoint (readIntact). Writers use readRun
// and stop at the damage: a checkpoint on top of it would hide it.
func (s *Store) readRunIntact(ctx context.Context, id record.RunID, want *callFilter) (*Run, error) {
	r, err := s.readRun(ctx, id, want)
	if err != nil && errors.Is(err, odb.ErrMissing) {
		return s.readIntact(ctx, id, want, err)
	}
	return r, err
}

// readIntact is readRun for a run whose tip failed to read for a missing
// object (err): it walks back the chain to the newest checkpoint that
// reads, returns it with Damage set and warns. Without one it returns an
// error wrapping ErrDamaged that says what is missing.
func (s *Store) readIntact(ctx context.Context, id record.RunID, want *callFilter, err error) (*Run, error) {
	tip, rerr := s.refs.Read(ctx, gitrefs.RunRef(id))
	if rerr != nil || tip.IsZero() {
		return nil, err
	}
	d := &Damage{Run: id, Tip: tip}
	for c, n := tip, 0; !c.IsZero() && n < maxDamagedWalk; n++ {
		missing := s.shallowMissing(c)
		if len(missing) == 0 {
			r, cerr := s.readCheckpoint(c, want)
			switch {
			case cerr == nil && r.ID == id:
				d.Intact, d.IntactID = c, r.Checkpoint.ID
				r.ID, r.Damage = id, d
				if s.log != nil {
					s.log.Warn("damaged run read up to its newest intact checkpoint; see 'gitguard fsck'", "damage", d.Summary())
				}
				return r, nil
			case cerr != nil && !errors.Is(cerr, odb.ErrMissing):
				return nil, cerr // invalid, not merely incomplete
			case cerr != nil:
				missing = []Missing{{What: "object named by the records: " + cerr.Error()}}
			default:
				return nil, fmt.Errorf("%w: checkpoint %s of run %q belongs to run %q", record.ErrCorrupt, c.Short(), id, r.ID)
			}
		}
		dc := DamagedCheckpoint{Commit: c, Missing: missing}
		var prev record.Hash
		dc.ID, prev = s.previous(c)
		d.Damaged = append(d.Damaged, dc)
		c = prev
	}
	return nil, fmt.Errorf("%w: %s: %w", ErrDamaged, d.Summary(), err)
}

// previous returns a checkpoint's id and the commit of the previous
// checkpoint of its chain, from its record when that reads, else from the
// commit's first parent when that is a checkpoint of the same run.
func (s *Store) previous(commit record.Hash) (record.CheckpointID, record.Hash) {
	if cp, err := s.ReadRecord(commit); err == nil {
		return cp.ID, cp.Prev
	}
	c, err := s.db.ReadCommit(commit)
	if err != nil {
		return "", record.ZeroHash
	}
	// The message says "gitguard <kind> <checkpoint id> of run <run>".
	var id record.CheckpointID
	if f := strings.Fields(strings.SplitN(c.Message, "\n", 2)[0]); len(f) >= 3 && f[0] == "gitguard" {
		id, _ = record.ParseCheckpointID(f[2]) // none when it is no checkpoint id
	}
	if len(c.Parents) == 0 {
		return id, record.ZeroHash
	}
	if _, err := s.ReadRecord(c.Parents[0]); err != nil && !errors.Is(err, odb.ErrMissing) {
		return id, record.ZeroHash // the user's HEAD commit: the chain starts here
	}
	return id, c.Parents[0]
}

// shallowMissing lists the objects of a checkpoint that readers need and
// the repository lacks: the commit, its tree, the records and the blobs
// they name, and the top work-tree and index trees. Objects deeper in
// those two trees are checked by Check.
func (s *Store) shallowMissing(commit record.Hash) []Missing {
	if !s.db.Has(commit) {
		return []Missing{{ID: commit, What: "commit"}}
	}
	c, err := s.db.ReadCommit(commit)
	if err != nil {
		return []Missing{{ID: commit, What: "commit (unreadable: " + err.Error() + ")"}}
	}
	var out []Missing
	var walk func(tree record.Hash, path string, depth int)
	walk = func(tree record.Hash, path string, depth int) {
		if !s.db.Has(tree) {
			out = append(out, Missing{ID: tree, What: treeWhat(path)})
			return
		}
		entries, err := s.db.ReadTree(tree)
		if err != nil {
			out = append(out, Missing{ID: tree, What: treeWhat(path) + " (unreadable)"})
			return
		}
		for _, e := range entries {
			sub := strings.TrimPrefix(path+"/"+e.Name, "/")
			switch {
			case depth == 0 && (e.Name == "worktree" || e.Name == "index"):
				if !s.db.Has(e.Hash) {
					out = append(out, Missing{ID: e.Hash, What: treeWhat(sub)})
				}
			case e.Mode == record.ModeTree:
				walk(e.Hash, sub, depth+1)
			case e.Mode == record.ModeGitlink:
			default:
				if !s.db.Has(e.Hash) {
					out = append(out, Missing{ID: e.Hash, What: sub})
				}
			}
		}
	}
	walk(c.Tree, "", 0)
	return out
}

func treeWhat(path string) string {
	if path == "" {
		return "tree"
	}
	return "tree " + path
}

// damagedTip marks a writer's failure to read a run's tip for a missing
// object as ErrDamaged: recording on top of it would hide the damage, so
// the writer stops and the user repairs the run (gitguard fsck --repair).
func damagedTip(err error) error {
	if err != nil && errors.Is(err, odb.ErrMissing) && !errors.Is(err, ErrDamaged) {
		return fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	return err
}

// skipDamaged lets a history walk go past a checkpoint whose record cannot
// be read for a missing object (err): it warns, saying what is missing,
// and returns the previous checkpoint of the chain.
func (s *Store) skipDamaged(id record.RunID, commit record.Hash, err error) (record.Hash, bool) {
	if !errors.Is(err, odb.ErrMissing) {
		return record.ZeroHash, false
	}
	name, prev := s.previous(commit)
	if s.log != nil {
		var ms []string
		for _, m := range s.shallowMissing(commit) {
			ms = append(ms, m.String())
		}
		s.log.Warn("damaged checkpoint skipped; see 'gitguard fsck'", "run", id, "checkpoint", name, "commit", commit.String(), "missing", strings.Join(ms, ", "))
	}
	return prev, true
}
