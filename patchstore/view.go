package patchstore

import (
	"fmt"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// A checkpoint whose record names a view (record.View) keeps both of its
// trees in its root tree, so that git keeps their blobs reachable:
//
//	view/start   the view the run started with
//	view/seen    the view this checkpoint's snapshot saw
//
// Checkpoints of older writers have no view/ folder and no view field.

// viewName is the root tree entry holding a checkpoint's views.
const viewName = "view"

// carryView gives a checkpoint the view its run started with (its own
// when it is the first to name one), and, when it took no snapshot of its
// own, the view the previous one saw.
func carryView(tip *Run, cp *record.Checkpoint) {
	var prev *record.View
	if tip.Exists() {
		prev = tip.Checkpoint.View
	}
	switch {
	case cp.View == nil && prev != nil:
		cp.View = &record.View{Start: prev.Start, Seen: prev.Seen}
	case cp.View != nil && prev != nil:
		cp.View.Start = prev.Start
	case cp.View != nil:
		cp.View.Start = cp.View.Seen
	}
}

// viewEntries is the view/ folder of a checkpoint viewing v.
func viewEntries(v *record.View) []odb.TreeEntry {
	e := []odb.TreeEntry{
		{Name: "seen", Mode: record.ModeTree, Hash: v.Seen},
		{Name: "start", Mode: record.ModeTree, Hash: v.Start},
	}
	odb.SortTree(e)
	return e
}

// viewTree returns the id of the view/ folder of a checkpoint viewing v.
func viewTree(v *record.View) record.Hash {
	return odb.HashObject(odb.TypeTree, odb.EncodeTree(viewEntries(v)))
}

// writeView stores the view/ folder of cp; zero when it names no view.
func (s *Store) writeView(cp *record.Checkpoint) (record.Hash, error) {
	if cp.View == nil {
		return record.ZeroHash, nil
	}
	h, err := s.db.WriteTree(viewEntries(cp.View))
	if err != nil {
		return record.ZeroHash, fmt.Errorf("write view: %w", err)
	}
	return h, nil
}
