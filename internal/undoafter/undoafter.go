// Package undoafter tidies what an undo leaves behind: the empty folders
// the agent created for files the undo deleted, and the index entries that
// still hold the agent's change (undo never writes the index, so it names
// the git command that makes the index agree).
//
// Invariants: only an empty folder that did not exist when the oldest
// undone call started is removed, never through a symlink; the index is
// read, never written; a conflict the agent resolved and staged is given
// back with git update-index --unresolve, never git restore --staged.
package undoafter

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// Tidier tidies one work tree after an undo.
type Tidier struct {
	DB    *odb.DB
	WS    *workspace.Workspace
	Store *patchstore.Store
}

// Note is a path whose staged state still holds the agent's change after
// undo restored the file, and the git command that fixes the index.
type Note struct {
	Path string
	Fix  string
}

// RemoveCreatedDirs removes the folders that held only files the undo
// deleted and that were not there when the oldest undone call started:
// the agent made them. A folder holding anything else stays. written are
// the plans undo carried out.
func (t *Tidier) RemoveCreatedDirs(ctx context.Context, run *patchstore.Run, targets []*patchstore.Call, written []record.Plan) []string {
	var deleted []string
	for _, it := range written {
		if it.Action == record.ActionDelete {
			deleted = append(deleted, it.Path)
		}
	}
	if len(deleted) == 0 || len(targets) == 0 {
		return nil
	}
	before, err := t.treeAtStart(ctx, run, targets[0])
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
		if existed, err := t.DB.IsDir(before, d); err != nil || existed {
			continue
		}
		if t.WS.CheckParents(d) != nil {
			continue
		}
		// Only a folder: where the undo put a file or a symlink back in the
		// place of a folder the agent made, that is no debris.
		if fi, err := os.Lstat(t.WS.Abs(d)); err != nil || !fi.IsDir() {
			continue
		}
		// os.Remove removes only an empty folder.
		if err := os.Remove(t.WS.Abs(d)); err == nil {
			removed = append(removed, d)
		}
	}
	sort.Strings(removed)
	return removed
}

// treeAtStart is the work tree recorded when call c started.
func (t *Tidier) treeAtStart(ctx context.Context, run *patchstore.Run, c *patchstore.Call) (record.Hash, error) {
	if !c.Ledger.BeforeTree.IsZero() {
		return c.Ledger.BeforeTree, nil
	}
	if c.Ledger.StartSeq == 0 {
		return record.ZeroHash, errors.New("call has no start checkpoint")
	}
	e, err := t.Store.CheckpointAt(ctx, run.ID, c.Ledger.StartSeq)
	if err != nil {
		return record.ZeroHash, err
	}
	return e.Checkpoint.WorktreeTree, nil
}

// IndexNotes lists the written paths whose index entry is the agent's
// after state (a git add or git rm it made) and differs from HEAD: the
// file is back, the index still says otherwise. A path that was in
// conflict when the oldest undone call started and is not now (the agent
// resolved it) gets the command that brings the conflict's stages back.
func (t *Tidier) IndexNotes(ctx context.Context, run *patchstore.Run, targets []*patchstore.Call, written []record.Plan) []Note {
	index, err := t.WS.IndexTree(ctx)
	if err != nil {
		return nil
	}
	head, err := t.WS.ReadHead(ctx)
	if err != nil {
		return nil
	}
	var headTree record.Hash
	if !head.Commit.IsZero() {
		c, err := t.DB.ReadCommit(head.Commit)
		if err != nil {
			return nil
		}
		headTree = c.Tree
	}
	unresolvable, _ := t.WS.Unresolvable(ctx)
	wasUnmerged := t.unmergedAtStart(ctx, run, targets)
	unmergedNow := map[string]bool{}
	if u, err := t.WS.Unmerged(ctx); err == nil && u != nil {
		for _, p := range u.Paths {
			unmergedNow[p.Path] = true
		}
	}
	var notes []Note
	for _, it := range written {
		if len(it.Calls) == 0 {
			continue
		}
		if u, ok := wasUnmerged[it.Path]; ok && !unmergedNow[it.Path] {
			// The agent resolved the conflict (git add, git rm): the undo
			// put the file back, the stages come back from the record.
			fix := t.unresolveFix(unresolvable, it)
			if fix == "" {
				fix = t.restageFix(u)
			}
			if fix != "" {
				notes = append(notes, Note{Path: it.Path, Fix: fix})
				continue
			}
		}
		staged, err1 := t.DB.Lookup(index, it.Path)
		committed, err2 := t.DB.Lookup(headTree, it.Path)
		if err1 != nil || err2 != nil || staged.State() == committed.State() || staged.State() == it.Target {
			continue
		}
		fix := "git restore --staged -- " + quoteArg(it.Path)
		if !committed.Exists() {
			fix = "git rm --cached -- " + quoteArg(it.Path)
		}
		if f := t.unresolveFix(unresolvable, it); f != "" {
			fix = f // the conflict the agent resolved and staged comes back
		}
		notes = append(notes, Note{Path: it.Path, Fix: fix})
	}
	return notes
}

// unmergedAtStart are the paths in conflict when the oldest of the undone
// calls started, as its start checkpoint recorded them.
func (t *Tidier) unmergedAtStart(ctx context.Context, run *patchstore.Run, targets []*patchstore.Call) map[string]record.UnmergedPath {
	out := map[string]record.UnmergedPath{}
	if run == nil {
		return out
	}
	seq := 0
	for _, c := range targets {
		if s := c.Ledger.StartSeq; s > 0 && (seq == 0 || s < seq) {
			seq = s
		}
	}
	if seq == 0 {
		return out
	}
	e, err := t.Store.CheckpointAt(ctx, run.ID, seq)
	if err != nil || e.Checkpoint.Unmerged == nil {
		return out
	}
	for _, p := range e.Checkpoint.Unmerged.Paths {
		out[p.Path] = p
	}
	return out
}

// restageFix is the command that puts a conflict's recorded stages back
// in the index (git update-index --index-info, which drops the path's
// stage-0 entry first), when every stage blob is still in the repository
// and the path can be written on one line. git update-index --unresolve
// cannot do it for a path git rm resolved (it needs the path in the index,
// before git 2.44).
func (t *Tidier) restageFix(u record.UnmergedPath) string {
	if strings.ContainsAny(u.Path, "\t\n\\") || len(u.Stages) == 0 {
		return ""
	}
	args := []string{"0", record.ZeroHash.String(), "0", quoteArg(u.Path)}
	for _, s := range u.Stages {
		if !t.DB.Has(s.Hash) {
			return "" // pruned since the operation ended
		}
		args = append(args, s.Mode.String(), s.Hash.String(), strconv.Itoa(s.Stage), quoteArg(u.Path))
	}
	return `printf '%s %s %s\t%s\n' ` + strings.Join(args, " ") + " | git update-index --index-info"
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

// An agent that resolves a conflict often stages the result (git add)
// inside the same call. Undoing that call puts the conflict's markers back
// in the file, but the index still says "resolved": git would commit the
// markers. git remembers what git add resolved (the index's resolve-undo
// record), so the fix is `git update-index --unresolve PATH`, which brings
// the stages back and leaves the file alone; `git restore --staged` would
// stage HEAD's version and lose the conflict.

// unresolveFix returns that command for an undone path whose restored
// content holds conflict markers and whose conflict the index remembers;
// "" otherwise.
func (t *Tidier) unresolveFix(unresolvable map[string]bool, it record.Plan) string {
	if !unresolvable[it.Path] || !it.Target.Mode.IsFile() {
		return ""
	}
	content := it.Content
	if content == nil {
		data, err := t.DB.ReadAs(it.Target.Hash, odb.TypeBlob)
		if err != nil {
			return ""
		}
		content = data
	}
	if !hasConflictMarkers(content) {
		return ""
	}
	arg := it.Path
	if strings.HasPrefix(arg, "-") {
		arg = "./" + arg // update-index takes no "--" before its paths
	}
	return "git update-index --unresolve " + quoteArg(arg)
}

// hasConflictMarkers reports whether data has a line opening a conflict
// ("<<<<<<< ") and a line closing one (">>>>>>> "), as git writes them.
func hasConflictMarkers(data []byte) bool {
	open := bytes.HasPrefix(data, []byte("<<<<<<< ")) || bytes.Contains(data, []byte("\n<<<<<<< "))
	return open && bytes.Contains(data, []byte("\n>>>>>>> "))
}
