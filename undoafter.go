package gitguard

import (
	"context"
	"errors"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// IndexNote is a path whose staged state still holds the agent's change
// after undo restored the file: undo never writes the index, so it says
// so and gives the git command that makes the index agree.
type IndexNote struct {
	Path string
	Fix  string // e.g. git restore --staged -- PATH
}

// removeCreatedDirs removes the folders that held only files the undo
// deleted and that were not there when the oldest undone call started:
// the agent made them. A folder holding anything else stays.
func (g *Guard) removeCreatedDirs(ctx context.Context, run *patchstore.Run, targets []*patchstore.Call, items []UndoItem) []string {
	var deleted []string
	for _, it := range items {
		if it.Written && it.Action == ActionDelete {
			deleted = append(deleted, it.Path)
		}
	}
	if len(deleted) == 0 || len(targets) == 0 {
		return nil
	}
	before, err := g.treeAtStart(ctx, run, targets[0])
	if err != nil {
		return nil // the folders stay: no harm, only debris
	}
	seen := map[string]bool{}
	var dirs []string
	for _, p := range deleted {
		for d := path.Dir(p); d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	// Deepest first, so that a parent is empty once its children are gone.
	sort.Slice(dirs, func(i, j int) bool {
		return len(dirs[i]) > len(dirs[j]) || (len(dirs[i]) == len(dirs[j]) && dirs[i] < dirs[j])
	})
	var removed []string
	for _, d := range dirs {
		if existed, err := g.db.IsDir(before, d); err != nil || existed {
			continue
		}
		if g.ws.CheckParents(d) != nil {
			continue
		}
		// os.Remove removes only an empty folder.
		if err := os.Remove(g.ws.Abs(d)); err == nil {
			removed = append(removed, d)
		}
	}
	sort.Strings(removed)
	return removed
}

// treeAtStart is the work tree recorded when call c started.
func (g *Guard) treeAtStart(ctx context.Context, run *patchstore.Run, c *patchstore.Call) (record.Hash, error) {
	if !c.Ledger.BeforeTree.IsZero() {
		return c.Ledger.BeforeTree, nil
	}
	if c.Ledger.StartSeq == 0 {
		return record.ZeroHash, errors.New("call has no start checkpoint")
	}
	e, err := g.store.CheckpointAt(ctx, run.ID, c.Ledger.StartSeq)
	if err != nil {
		return record.ZeroHash, err
	}
	return e.Checkpoint.WorktreeTree, nil
}

// indexNotes lists the written paths whose index entry is the agent's
// after state (a git add or git rm it made) and differs from HEAD: the
// file is back, the index still says otherwise.
func (g *Guard) indexNotes(ctx context.Context, items []UndoItem) []IndexNote {
	index, err := g.ws.IndexTree(ctx)
	if err != nil {
		return nil
	}
	head, err := g.ws.ReadHead(ctx)
	if err != nil {
		return nil
	}
	var headTree record.Hash
	if !head.Commit.IsZero() {
		c, err := g.db.ReadCommit(head.Commit)
		if err != nil {
			return nil
		}
		headTree = c.Tree
	}
	unresolvable, _ := g.ws.Unresolvable(ctx)
	var notes []IndexNote
	for _, it := range items {
		if !it.Written || len(it.Calls) == 0 {
			continue
		}
		staged, err1 := g.db.Lookup(index, it.Path)
		committed, err2 := g.db.Lookup(headTree, it.Path)
		if err1 != nil || err2 != nil || staged.State() == committed.State() || staged.State() == it.Target {
			continue
		}
		fix := "git restore --staged -- " + quoteArg(it.Path)
		if !committed.Exists() {
			fix = "git rm --cached -- " + quoteArg(it.Path)
		}
		if f := g.unresolveFix(unresolvable, it); f != "" {
			fix = f // the conflict the agent resolved and staged comes back
		}
		notes = append(notes, IndexNote{Path: it.Path, Fix: fix})
	}
	return notes
}

// quoteArg quotes a path for a POSIX shell when it needs it.
func quoteArg(s string) string {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && !strings.ContainsRune("/._-", r) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
