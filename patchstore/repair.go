package patchstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// ErrUnrepairable is returned by Repair for a damaged run with no intact
// checkpoint to go back to (its tip commit itself is gone, say).
var ErrUnrepairable = errors.New("damaged run has no intact checkpoint")

// CheckRun walks every checkpoint of run id, newest first, and every
// object each one names (shared subtrees once), and returns the run's
// Damage, or nil when nothing is missing. Its Intact is the newest
// checkpoint that is complete and all of whose predecessors are: what git
// gc walks from the run's ref is then complete.
func (s *Store) CheckRun(ctx context.Context, id record.RunID) (*Damage, error) {
	tip, err := s.refs.Read(ctx, gitrefs.RunRef(id))
	if err != nil {
		return nil, err
	}
	if tip.IsZero() {
		return nil, fmt.Errorf("run %q: %w", id, ErrUnknownRun)
	}
	d := &Damage{Run: id, Tip: tip}
	w := deepWalk{s: s, trees: map[record.Hash][]Missing{}, blobs: map[record.Hash]bool{}}
	type link struct {
		DamagedCheckpoint
		ok bool
	}
	var chain []link
	complete := false // the walk reached the run's first checkpoint
	for c, n := tip, 0; n < 1<<20; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dc := DamagedCheckpoint{Commit: c, Missing: w.commit(c)}
		var prev record.Hash
		dc.ID, prev = s.previous(c)
		chain = append(chain, link{dc, len(dc.Missing) == 0})
		if prev.IsZero() {
			// The first checkpoint, or one whose record and commit are
			// both gone: then what lies below is unknown.
			complete = s.db.Has(c)
			break
		}
		c = prev
	}
	intact := -1 // newest index from which every older checkpoint is complete
	if complete {
		for i := len(chain) - 1; i >= 0 && chain[i].ok; i-- {
			intact = i
		}
	}
	for i, l := range chain {
		if !l.ok {
			d.Damaged = append(d.Damaged, l.DamagedCheckpoint)
		}
		if i == intact {
			d.Intact, d.IntactID = l.Commit, l.ID
		}
	}
	if len(d.Damaged) == 0 {
		return nil, nil
	}
	return d, nil
}

// deepWalk finds the missing objects under checkpoints, remembering what
// it found under each tree so that a tree shared by many checkpoints is
// walked once.
type deepWalk struct {
	s     *Store
	trees map[record.Hash][]Missing // by tree: what is missing beneath it, paths relative to it
	blobs map[record.Hash]bool      // blobs known present
}

func (w *deepWalk) commit(c record.Hash) []Missing {
	if !w.s.db.Has(c) {
		return []Missing{{ID: c, What: "commit"}}
	}
	cm, err := w.s.db.ReadCommit(c)
	if err != nil {
		return []Missing{{ID: c, What: "commit (unreadable: " + err.Error() + ")"}}
	}
	return w.tree(cm.Tree, "")
}

// tree returns what is missing at or beneath tree h, which the checkpoint
// names at path.
func (w *deepWalk) tree(h record.Hash, path string) []Missing {
	rel, ok := w.trees[h]
	if !ok {
		rel = w.walk(h)
		w.trees[h] = rel
	}
	if path == "" || len(rel) == 0 {
		return rel
	}
	out := make([]Missing, len(rel))
	for i, m := range rel {
		out[i] = m
		if m.What == "tree" {
			out[i].What = "tree " + path
		} else if rest, ok := strings.CutPrefix(m.What, "tree "); ok {
			out[i].What = "tree " + path + "/" + rest
		} else {
			out[i].What = path + "/" + m.What
		}
	}
	return out
}

func (w *deepWalk) walk(h record.Hash) []Missing {
	if !w.s.db.Has(h) {
		return []Missing{{ID: h, What: "tree"}}
	}
	entries, err := w.s.db.ReadTree(h)
	if err != nil {
		return []Missing{{ID: h, What: "tree (unreadable: " + err.Error() + ")"}}
	}
	var out []Missing
	for _, e := range entries {
		switch e.Mode {
		case record.ModeTree:
			out = append(out, w.tree(e.Hash, e.Name)...)
		case record.ModeGitlink:
		default:
			if w.blobs[e.Hash] {
				continue
			}
			if w.s.db.Has(e.Hash) {
				w.blobs[e.Hash] = true
			} else {
				out = append(out, Missing{ID: e.Hash, What: e.Name})
			}
		}
	}
	return out
}

// Repair re-points a damaged run (d from CheckRun) at its newest intact
// checkpoint, by compare-and-swap from the damaged tip, and returns the
// ref that keeps the damaged tip's record.
//
// That ref (gitrefs.DamagedRef) names a blob holding the damaged tip's
// commit id and what it lacks, not the commit: git gc and git repack walk
// every ref, and one that reaches a missing object makes them fail, which
// is what the repair is for. The damaged checkpoints' surviving objects
// thus become unreachable and git gc deletes them in time; the blob says
// what they were. It returns ErrUnrepairable when no checkpoint is intact
// and gitrefs.ErrRefChanged when the run moved meanwhile.
func (s *Store) Repair(ctx context.Context, d *Damage) (string, error) {
	if d.Intact.IsZero() {
		return "", fmt.Errorf("%w: %s", ErrUnrepairable, d.Summary())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "gitguard damaged checkpoint\nrun %s\ntip %s\nrepaired-to %s %s\n", d.Run, d.Tip, d.Intact, d.IntactID)
	for _, c := range d.Damaged {
		fmt.Fprintf(&b, "damaged %s %s\n", c.Commit, c.ID)
		for _, m := range c.Missing {
			fmt.Fprintf(&b, "missing %s %s\n", m.ID, m.What)
		}
	}
	blob, err := s.db.Write(odb.TypeBlob, []byte(b.String()))
	if err != nil {
		return "", err
	}
	if err := s.db.Sync(); err != nil {
		return "", err
	}
	kept := gitrefs.DamagedRef(d.Run, d.Tip)
	old, err := s.refs.Read(ctx, kept)
	if err != nil {
		return "", err
	}
	if old != blob { // a repair interrupted before it moved the run ref wrote it already
		if err := s.refs.Update(ctx, kept, blob, old, "gitguard: damaged tip of run "+string(d.Run)); err != nil {
			return "", err
		}
	}
	if err := s.refs.Update(ctx, gitrefs.RunRef(d.Run), d.Intact, d.Tip, "gitguard: repair run "+string(d.Run)); err != nil {
		return "", err
	}
	// A prune racing the update may have taken the new blob.
	if _, err := s.db.Ensure([]record.Hash{blob}); err != nil {
		return kept, err
	}
	return kept, nil
}
