package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard/record"
)

// An index with conflict entries (a merge, rebase, cherry-pick or stash
// pop stopped on conflicts) is recorded like any other, with three rules:
//
//   - the work tree holds the truth: each conflicted path's file is read
//     and recorded as it is, conflict markers and all, never trusted from
//     stat data (the index has none for a conflicted path);
//   - the index tree (index/ of a checkpoint) holds stage 2, "ours", for a
//     conflicted path, and omits a path that has no stage 2 (deleted by us,
//     added by them): a tree cannot hold stages, and "ours" is what HEAD
//     has, so the index tree diffs against HEAD as git diff --cached does;
//   - the stages themselves go to Snapshot.Unmerged, with the operation
//     git is in the middle of.
//
// The index file is only read, as always.

// splitUnmerged returns idx as the walk should see it, every conflicted
// path being one stage-0 entry without stat data, the entries of the index
// tree, and the stages of the conflicted paths. Without conflict entries
// it returns idx itself and nil.
func splitUnmerged(idx *Index) (view *Index, indexTree []flatEntry, paths []record.UnmergedPath) {
	conflicted := false
	for i := range idx.Entries {
		if idx.Entries[i].Stage != 0 {
			conflicted = true
			break
		}
	}
	if !conflicted {
		return idx, nil, nil
	}
	view = &Index{Mtime: idx.Mtime, sharedIndex: idx.sharedIndex}
	view.Entries = make([]IndexEntry, 0, len(idx.Entries))
	entries := idx.Entries
	for i := 0; i < len(entries); {
		e := entries[i]
		if e.Stage == 0 {
			view.Entries = append(view.Entries, e)
			i++
			continue
		}
		j := i
		for j < len(entries) && entries[j].Path == e.Path && entries[j].Stage != 0 {
			j++
		}
		stages := entries[i:j]
		i = j
		up := record.UnmergedPath{Path: e.Path}
		pick := -1 // the stage whose mode the walk expects: ours, else theirs, else the base
		for k := range stages {
			s := &stages[k]
			up.Stages = append(up.Stages, record.Stage{Stage: s.Stage, Mode: s.Mode, Hash: s.Hash})
			if pick < 0 || s.Stage == 2 || (s.Stage == 3 && stages[pick].Stage != 2) {
				pick = k
			}
		}
		one := stages[pick]
		one.Stage, one.HasStat, one.IntentToAdd, one.SkipWorktree = 0, false, false, false
		view.Entries = append(view.Entries, one)
		if record.ValidatePath(e.Path) == nil {
			paths = append(paths, up)
		}
	}
	for i := range entries {
		e := &entries[i]
		switch {
		case e.Stage == 2:
			indexTree = append(indexTree, flatEntry{path: e.Path, mode: e.Mode, hash: e.Hash})
		case e.Stage == 0 && !e.IntentToAdd:
			indexTree = append(indexTree, flatEntry{path: strings.TrimSuffix(e.Path, "/"), mode: e.Mode, hash: e.Hash})
		}
	}
	return view, indexTree, paths
}

// Operation returns the git command this work tree is in the middle of, from
// the marker files git keeps in the worktree's own git dir (a linked
// worktree has its own): OpNone when there is none. It reads a few file
// names and writes nothing.
func (w *Workspace) Operation() record.Operation {
	return operationIn(w.repo.GitDir)
}

func operationIn(gitDir string) record.Operation {
	exists := func(name string) bool {
		_, err := os.Lstat(filepath.Join(gitDir, name))
		return err == nil
	}
	switch {
	case exists("rebase-merge"):
		return record.OpRebase
	case exists(filepath.Join("rebase-apply", "applying")):
		return record.OpAm
	case exists("rebase-apply"):
		return record.OpRebase
	case exists("MERGE_HEAD"):
		return record.OpMerge
	case exists("CHERRY_PICK_HEAD"):
		return record.OpCherryPick
	case exists("REVERT_HEAD"):
		return record.OpRevert
	case exists("BISECT_LOG"):
		return record.OpBisect
	}
	return record.OpNone
}

// Unmerged returns the conflict entries of the index and the operation in
// progress, or nil when the index has none. It reads the index and never
// writes it.
func (w *Workspace) Unmerged(ctx context.Context) (*record.Unmerged, error) {
	idx, err := w.ReadIndex(ctx)
	if err != nil {
		return nil, err
	}
	_, _, paths := splitUnmerged(idx)
	return w.unmergedRecord(paths), nil
}

func (w *Workspace) unmergedRecord(paths []record.UnmergedPath) *record.Unmerged {
	if paths == nil {
		return nil
	}
	return &record.Unmerged{Operation: w.Operation(), Paths: paths}
}

// OperationCommits returns the commits whose content the operation in
// progress brings into the work tree: MERGE_HEAD (every head of an octopus
// merge), CHERRY_PICK_HEAD, REBASE_HEAD (the commit a rebase stopped on),
// and for a revert the parent of REVERT_HEAD (the content it goes back to).
// It reads files of the worktree's git dir and writes nothing; a marker
// it cannot read is left out.
func (w *Workspace) OperationCommits() []record.Hash {
	var out []record.Hash
	read := func(name string) []record.Hash {
		data, err := os.ReadFile(filepath.Join(w.repo.GitDir, name))
		if err != nil {
			return nil
		}
		var hs []record.Hash
		for _, line := range strings.Split(string(data), "\n") {
			if h, err := record.ParseHash(strings.TrimSpace(line)); err == nil {
				hs = append(hs, h)
			}
		}
		return hs
	}
	out = append(out, read("MERGE_HEAD")...)
	out = append(out, read("CHERRY_PICK_HEAD")...)
	out = append(out, read("REBASE_HEAD")...)
	for _, h := range read("REVERT_HEAD") {
		if c, err := w.db.ReadCommit(h); err == nil && len(c.Parents) > 0 {
			out = append(out, c.Parents[0])
		}
	}
	return out
}
