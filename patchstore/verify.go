package patchstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// MaxChainLength bounds the number of checkpoints VerifyRun walks.
const MaxChainLength = 1 << 20

// VerifyError says which checkpoint of which run failed verification and
// why. It wraps ErrCorrupt and the underlying cause.
type VerifyError struct {
	Run    string
	Commit record.Hash // zero when the problem is the run itself
	Err    error
}

func (e *VerifyError) Error() string {
	if e.Commit.IsZero() {
		return fmt.Sprintf("run %s: %v", e.Run, e.Err)
	}
	return fmt.Sprintf("run %s, checkpoint commit %s: %v", e.Run, e.Commit.Short(), e.Err)
}

// Unwrap returns ErrCorrupt and the cause, for errors.Is.
func (e *VerifyError) Unwrap() []error { return []error{record.ErrCorrupt, e.Err} }

// VerifyRun checks, before anything trusts them, every checkpoint of the
// chain ending at tip, as run id (DESIGN invariant 5). For each checkpoint:
// the commit and its records decode with a supported format version and
// sizes within MaxRecordSize; the record names run id, its sequence number
// and Prev link agree with the chain and the commit's parents; the root tree
// holds only gitguard's entries and they agree with the record; every entry
// of the work-tree and index trees has a safe name (see ValidatePath), no
// tree nests deeper than record.MaxTreeDepth; every object a tree or record names
// exists; no recorded path runs through a symlink of the checkpoint's work
// tree. Text fields may hold any text a local run may record (control
// characters included): text output escapes them (record.Printable).
//
// It returns nil or a *VerifyError wrapping ErrCorrupt. It only reads and is
// safe for concurrent use. The objects must already be in the repository;
// after a git fetch that wrote a pack, Rescan first, so the store sees it.
func (s *Store) VerifyRun(ctx context.Context, id record.RunID, tip record.Hash) error {
	if err := id.Validate(); err != nil {
		return &VerifyError{Run: fmt.Sprintf("%q", id), Err: err}
	}
	v := &verifier{s: s, trees: map[record.Hash]bool{}, calls: callMemo{}}
	seq := -1
	seen := map[record.Hash]bool{}
	for h, n := tip, 0; !h.IsZero(); n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		fail := func(format string, args ...any) error {
			return &VerifyError{Run: string(id), Commit: h, Err: fmt.Errorf(format, args...)}
		}
		if n >= MaxChainLength {
			return fail("chain longer than %d checkpoints", MaxChainLength)
		}
		if seen[h] {
			return fail("checkpoint chain loops")
		}
		seen[h] = true
		r, err := s.readCheckpointMemo(h, nil, v.calls)
		if err != nil {
			return &VerifyError{Run: string(id), Commit: h, Err: err}
		}
		cp := r.Checkpoint
		if cp.RunID != id {
			return fail("record names run %q", cp.RunID)
		}
		if seq >= 0 && cp.Seq != seq {
			return fail("sequence number %d, expected %d", cp.Seq, seq)
		}
		if cp.Seq < 1 || cp.ID != record.NewCheckpointID(cp.Seq) {
			return fail("checkpoint id %q does not match sequence number %d", cp.ID, cp.Seq)
		}
		if cp.Prev.IsZero() != (cp.Seq == 1) {
			return fail("checkpoint %s: previous link and sequence number disagree", cp.ID)
		}
		if err := v.checkpoint(h, r); err != nil {
			return &VerifyError{Run: string(id), Commit: h, Err: err}
		}
		seq = cp.Seq - 1
		h = cp.Prev
	}
	return nil
}

type verifier struct {
	s     *Store
	trees map[record.Hash]bool // trees already verified
	// Every checkpoint's records are checked against its own work tree,
	// but consecutive checkpoints share most folders: the folders read
	// and the (folder, path) pairs found free of symlinks are kept, so a
	// long run costs what its changes cost, not checkpoints × calls reads.
	folders map[record.Hash][]odb.TreeEntry
	clear   map[prefixKey]bool
	calls   callMemo // the calls read, by their subtree
}

// maxCallMemo bounds the calls a verifier keeps decoded.
const maxCallMemo = 1 << 16

type prefixKey struct {
	tree record.Hash
	path string
}

// maxVerifyMemo bounds each memo of the verifier; past it the memo starts over.
const maxVerifyMemo = 1 << 16

func (v *verifier) readFolder(h record.Hash) ([]odb.TreeEntry, error) {
	if e, ok := v.folders[h]; ok {
		return e, nil
	}
	e, err := v.s.db.ReadTree(h)
	if err != nil {
		return nil, err
	}
	if v.folders == nil || len(v.folders) >= maxVerifyMemo {
		v.folders = map[record.Hash][]odb.TreeEntry{}
	}
	v.folders[h] = e
	return e, nil
}

var errHostile = errors.New("unsafe content")

func (v *verifier) checkpoint(h record.Hash, r *Run) error {
	cp := r.Checkpoint
	c, err := v.s.db.ReadCommit(h)
	if err != nil {
		return err
	}
	if err := checkParents(c.Parents, cp); err != nil {
		return err
	}
	if !cp.Head.Commit.IsZero() {
		if _, err := v.s.db.ReadCommit(cp.Head.Commit); err != nil {
			return fmt.Errorf("HEAD commit: %w", err)
		}
	}
	root, err := v.s.db.ReadTree(c.Tree)
	if err != nil {
		return err
	}
	if err := checkRoot(root, cp); err != nil {
		return err
	}
	if err := v.s.checkIndex(r); err != nil {
		return err
	}
	for _, t := range []struct {
		name string
		h    record.Hash
	}{{"worktree", cp.WorktreeTree}, {"index", cp.IndexTree}} {
		if err := v.tree(t.h, t.name, "", 0); err != nil {
			return err
		}
	}
	if cp.View != nil {
		for name, h := range map[string]record.Hash{"view/start": cp.View.Start, "view/seen": cp.View.Seen} {
			if err := v.tree(h, name, "", 0); err != nil {
				return err
			}
		}
	}
	for _, o := range cp.Oversize {
		if o.Size < 0 {
			return fmt.Errorf("%w: oversize %s has a negative size", errHostile, o.Path)
		}
		if err := v.noSymlinkPrefix(cp.WorktreeTree, o.Path, nil); err != nil {
			return err
		}
	}
	// A path the run's calls record a patch of is theirs to swap: a folder
	// the agent turned into a symlink leaves the paths recorded beneath it
	// absent, and undo deletes the link before it writes them back.
	swapped := map[string]bool{}
	for _, call := range r.Calls {
		for i := range call.Patches {
			swapped[call.Patches[i].Path] = true
		}
	}
	for id, call := range r.Calls {
		l := &call.Ledger
		for _, p := range l.Paths {
			if err := v.noSymlinkPrefix(cp.WorktreeTree, p, swapped); err != nil {
				return fmt.Errorf("call %s: %w", id, err)
			}
		}
		for i := range call.Patches {
			p := &call.Patches[i]
			if err := v.noSymlinkPrefix(cp.WorktreeTree, p.Path, swapped); err != nil {
				return fmt.Errorf("call %s: %w", id, err)
			}
			if !p.Oversize {
				for _, st := range []record.State{p.Before(), p.After()} {
					if err := v.has(st); err != nil {
						return fmt.Errorf("call %s: patch of %s: %w", id, p.Path, err)
					}
				}
			}
			if !p.PatchRef.IsZero() && !v.s.db.Has(p.PatchRef) {
				return fmt.Errorf("call %s: patch of %s: object %s: %w", id, p.Path, p.PatchRef.Short(), odb.ErrMissing)
			}
		}
		for _, b := range call.Before {
			if err := v.noSymlinkPrefix(cp.WorktreeTree, b.Path, swapped); err != nil {
				return fmt.Errorf("call %s: %w", id, err)
			}
			if !b.Oversize {
				if err := v.has(b.State); err != nil {
					return fmt.Errorf("call %s: before state of %s: %w", id, b.Path, err)
				}
			}
		}
	}
	return nil
}

func (v *verifier) has(st record.State) error {
	if !st.Exists() || st.Mode == record.ModeGitlink {
		return nil
	}
	if !v.s.db.Has(st.Hash) {
		return fmt.Errorf("object %s: %w", st.Hash.Short(), odb.ErrMissing)
	}
	return nil
}

// tree checks a snapshot tree: names, depth, and that every object exists.
func (v *verifier) tree(h record.Hash, top, prefix string, depth int) error {
	if v.trees[h] {
		return nil
	}
	if depth > record.MaxTreeDepth {
		return fmt.Errorf("%w: %s/%s nests deeper than %d folders", errHostile, top, prefix, record.MaxTreeDepth)
	}
	entries, err := v.s.db.ReadTree(h)
	if err != nil {
		return fmt.Errorf("%s/%s: %w", top, prefix, err)
	}
	for _, e := range entries {
		p := e.Name
		if prefix != "" {
			p = prefix + "/" + e.Name
		}
		// Check the name alone: the prefix was checked on the way down,
		// and a tree shared by several paths is only walked once. (ReadTree
		// checked it already; this says where the entry is.)
		if err := record.ValidateTreeName(e.Name); err != nil {
			return fmt.Errorf("%s tree entry %s: %w", top, record.Quoted(p), err)
		}
		switch e.Mode {
		case record.ModeTree:
			if err := v.tree(e.Hash, top, p, depth+1); err != nil {
				return err
			}
		case record.ModeGitlink:
			// A submodule commit lives in another repository.
		default:
			if !v.s.db.Has(e.Hash) {
				return fmt.Errorf("%s/%s: object %s: %w", top, p, e.Hash.Short(), odb.ErrMissing)
			}
		}
	}
	v.trees[h] = true
	return nil
}

// noSymlinkPrefix refuses a recorded path that runs through a symlink (or a
// submodule) of the work tree: writing it would land outside the work tree.
// A symlink swapped names (the paths the run's calls record patches of) is
// a type swap they made (a folder turned into a link, or an undo of one): a
// path beneath it is absent there, and undo writes it only after deleting
// the link, into a real folder (safewrite refuses any other write beneath a
// link). Folders found clear are remembered (v.clear), so that a path
// checked at one checkpoint costs nothing at the next; a path let through
// for a swap is not remembered, as the next checkpoint's swaps may differ.
func (v *verifier) noSymlinkPrefix(tree record.Hash, path string, swapped map[string]bool) error {
	var seen []prefixKey
	cur := tree
	rest := path
	for {
		name, tail, more := cut(rest)
		if !more || v.clear[prefixKey{cur, rest}] {
			break // no folder left, or this folder was found clear for the rest
		}
		seen = append(seen, prefixKey{cur, rest})
		entries, err := v.readFolder(cur)
		if err != nil {
			return fmt.Errorf("path %s: %w", path, err)
		}
		var next *odb.TreeEntry
		for i := range entries {
			if entries[i].Name == name {
				next = &entries[i]
				break
			}
		}
		prefix := path[:len(path)-len(tail)-1]
		switch {
		case next != nil && next.Mode == record.ModeSymlink && swapped[prefix]:
			return nil
		case next != nil && (next.Mode == record.ModeSymlink || next.Mode == record.ModeGitlink):
			return fmt.Errorf("%w: recorded path %q runs through the symlink or submodule %q", errHostile, path, prefix)
		}
		if next == nil || next.Mode != record.ModeTree {
			break // the folder does not exist in this snapshot, or a file ends it
		}
		cur, rest = next.Hash, tail
	}
	if v.clear == nil || len(v.clear)+len(seen) > maxVerifyMemo {
		v.clear = map[prefixKey]bool{}
	}
	for _, k := range seen {
		v.clear[k] = true
	}
	return nil
}

func cut(p string) (first, rest string, more bool) {
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			return p[:i], p[i+1:], true
		}
	}
	return p, "", false
}

// checkParents checks a checkpoint commit's parents: exactly the previous
// checkpoint (first) and the HEAD commit.
func checkParents(parents []record.Hash, cp *record.Checkpoint) error {
	allowed := map[record.Hash]bool{cp.Prev: !cp.Prev.IsZero(), cp.Head.Commit: !cp.Head.Commit.IsZero()}
	if len(parents) > 2 {
		return fmt.Errorf("commit has %d parents", len(parents))
	}
	for _, p := range parents {
		if !allowed[p] {
			return fmt.Errorf("commit parent %s is neither the previous checkpoint nor HEAD", p.Short())
		}
	}
	if !cp.Prev.IsZero() && (len(parents) == 0 || parents[0] != cp.Prev) {
		return fmt.Errorf("first parent is not the previous checkpoint %s", cp.Prev.Short())
	}
	return nil
}

// checkRoot checks a checkpoint's root tree: checkpoint.json, calls/,
// runindex/, index/, worktree/ and view/ only, the last three as the
// record names them.
func checkRoot(root []odb.TreeEntry, cp *record.Checkpoint) error {
	want := map[string]record.Hash{"index": cp.IndexTree, "worktree": cp.WorktreeTree}
	for _, e := range root {
		switch e.Name {
		case "checkpoint.json":
			if e.Mode != record.ModeFile {
				return fmt.Errorf("%w: checkpoint.json is not a file", errHostile)
			}
		case "calls", indexName:
			if e.Mode != record.ModeTree {
				return fmt.Errorf("%w: %s is not a folder", errHostile, e.Name)
			}
		case "index", "worktree":
			if e.Mode != record.ModeTree || e.Hash != want[e.Name] {
				return fmt.Errorf("%w: %s/ does not match the record", errHostile, e.Name)
			}
			delete(want, e.Name)
		case viewName:
			if cp.View == nil || e.Mode != record.ModeTree || e.Hash != viewTree(cp.View) {
				return fmt.Errorf("%w: view/ does not match the record", errHostile)
			}
		default:
			return fmt.Errorf("%w: unexpected entry %s in the checkpoint tree", errHostile, record.Quoted(e.Name))
		}
	}
	if len(want) > 0 {
		return fmt.Errorf("%w: checkpoint tree lacks index/ or worktree/", errHostile)
	}
	// A record naming a view without view/ in its tree is read all the
	// same: its view trees are checked where they are used (a fetched
	// run's verification, a workspace taking the run's view) and refused
	// there if they are missing.
	return nil
}
